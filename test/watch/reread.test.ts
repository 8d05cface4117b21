/**
 * `tgw watch` reads little per edit (docs/watch.md > "What a reconcile re-reads", "When a change is
 * read"): with the default (short) debounce an edit re-parses only the file that changed and re-reads
 * only the object it touched, with one GET and no list; a burst of writes made while Git holds its
 * index lock is one reconcile; a file still open for writing is not read, however long its writer
 * pauses.
 */
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { keysDescribed, type LogEvent, scratchConfig, startWatch, type Watcher } from "./child.js";

const A = (description: string) =>
  `stack: watch-reread\napi_keys:\n  a:\n    description: ${description}\ntunnel_group_backends:\n  web:\n    description: web\n`;
const B_FIRST = "api_keys:\n  b:\n    description: b-v1\n";
const B_REST = "  c:\n    description: c-v1\n";

let server: TestServer;
let watcher: Watcher;
const scratch = scratchConfig("tgw-watch-reread-", {
  "config/a.yaml": A("a-v1"),
  "config/b.yaml": B_FIRST + B_REST,
});

const succeeded = (e: LogEvent) => e.event === "reconcile_succeeded";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until no reconcile runs and none is due from a file change (the quiet time has passed). */
async function settled(from: number): Promise<void> {
  await watcher.waitForEvent(succeeded, { from });
  await sleep(300);
}

beforeAll(async () => {
  server = await startTestServer();
  // No --debounce: the default is what is tested.
  watcher = startWatch({ dir: scratch.dir, api: server, args: ["--log-format", "json", "--interval", "1h"] });
  await watcher.waitForEvent(succeeded, { timeoutMs: 20_000 });
});

afterAll(async () => {
  await watcher?.stop();
  await server?.close();
  scratch.cleanup();
});

describe("tgw watch re-reads only what an edit touched", () => {
  it("applies an edit re-parsing one file and reading one object again, with no list", async () => {
    const started = watcher.events().find((e) => e.event === "started");
    expect(started?.debounceMs).toBe(50);
    // The first edit also reads again what the startup created (its kept copy predates the creates).
    let from = watcher.events().length;
    scratch.write("config/a.yaml", A("a-v2"));
    await settled(from);

    from = watcher.events().length;
    server.resetRequests();
    scratch.write("config/a.yaml", A("a-v3"));
    const { event } = await watcher.waitForEvent(succeeded, { from });
    expect(event.changes).toEqual([{ address: "api_keys.a", action: "update" }]);
    expect(event.reads).toEqual({ filesParsed: 1, filesReused: 1, live: "partial", objectsReread: 1 });
    const requests = server.requests.map((r) => `${r.method} ${r.path}`);
    const [key] = await keysDescribed(server, "a-v3");
    expect(requests).toEqual([`GET /api_keys/${key?.id}`, `PATCH /api_keys/${key?.id}`]);
  });

  it("makes one reconcile of a git pull writing several files with pauses, once Git is done", async () => {
    await sleep(300);
    const from = watcher.events().length;
    // Git holds .git/index.lock while it updates the work tree; its pauses here outlast any debounce.
    mkdirSync(join(scratch.root, ".git"), { recursive: true });
    const lock = join(scratch.root, ".git", "index.lock");
    writeFileSync(lock, "");
    try {
      for (let i = 1; i <= 2; i++) {
        scratch.write("config/a.yaml", A(`a-pull-${i}`));
        await sleep(700);
        scratch.write("config/b.yaml", `api_keys:\n  b:\n    description: b-pull-${i}\n${B_REST}`);
        await sleep(700);
      }
      expect(
        watcher
          .events()
          .slice(from)
          .filter((e) => e.event.startsWith("reconcile")),
      ).toEqual([]);
    } finally {
      rmSync(lock);
    }
    await settled(from);
    const runs = watcher
      .events()
      .slice(from)
      .filter((e) => e.event.startsWith("reconcile"));
    expect(runs).toHaveLength(1);
    expect(await keysDescribed(server, "a-pull-2")).toHaveLength(1);
    expect(await keysDescribed(server, "b-pull-2")).toHaveLength(1);
  });

  it("never reads a file its writer still has open, however long the writer pauses", async () => {
    await sleep(300);
    const from = watcher.events().length;
    server.resetRequests();
    const fd = openSync(join(scratch.dir, "b.yaml"), "w");
    try {
      // Half the file: valid YAML without api_keys.c, which read now would plan its deletion.
      writeSync(fd, "api_keys:\n  b:\n    description: b-v2\n");
      await sleep(1_500);
      expect(
        watcher
          .events()
          .slice(from)
          .filter((e) => e.event.startsWith("reconcile")),
      ).toEqual([]);
      expect(server.mutations()).toEqual([]);
      writeSync(fd, B_REST);
    } finally {
      closeSync(fd);
    }
    const { event } = await watcher.waitForEvent(succeeded, { from });
    expect(event.changes).toEqual([{ address: "api_keys.b", action: "update" }]);
    expect(await keysDescribed(server, "c-v1")).toHaveLength(1);
    expect(server.mutations().map((r) => r.method)).toEqual(["PATCH"]);
  });
});
