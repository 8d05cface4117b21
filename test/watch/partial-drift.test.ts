/**
 * What a file-change reconcile trusts (docs/watch.md > "What a reconcile re-reads"): after drift of a
 * resource the edit did not touch, the file-change reconcile applies the edit from what it read again
 * and sends nothing to the drifted object (its kept copy is not trusted for a call); the next interval
 * reads everything and heals the drift. An edit removing a resource deleted behind the watcher's back
 * reads it again first, so no DELETE is sent for an object that is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, keysDescribed, type LogEvent, scratchConfig, startWatch, type Watcher } from "./child.js";

const config = (a: string, withC = true) =>
  `stack: watch-partial\napi_keys:\n  a:\n    description: ${a}\n  b:\n    description: b-v1\n${withC ? "  c:\n    description: c-v1\n" : ""}`;

let server: TestServer;
let watcher: Watcher;
const scratch = scratchConfig("tgw-watch-partial-", { "config/main.yaml": config("a-v1") });

const succeeded = (e: LogEvent) => e.event === "reconcile_succeeded";
const trigger = (e: LogEvent) => e.trigger as { files: string[]; interval: boolean; startup: boolean };
const fileRun = (e: LogEvent) => succeeded(e) && !trigger(e).interval && trigger(e).files.length > 0;
const intervalRun = (e: LogEvent) => succeeded(e) && trigger(e).interval;

beforeAll(async () => {
  server = await startTestServer();
  watcher = startWatch({ dir: scratch.dir, api: server, args: ["--log-format", "json", "--interval", "3s"] });
  await watcher.waitForEvent(succeeded, { timeoutMs: 20_000 });
});

afterAll(async () => {
  await watcher?.stop();
  await server?.close();
  scratch.cleanup();
});

/** Waits for an interval run to end, so the next steps have most of an interval to themselves. */
async function afterInterval(): Promise<void> {
  await watcher.waitForEvent(intervalRun, { from: watcher.events().length, timeoutMs: 20_000 });
}

/**
 * Runs `attempt` until the file change's reconcile comes before the next interval's (an interval
 * that comes first reads everything, so the case under test did not happen), at most 3 times; fails
 * if it never does. `attempt` gets its number (1, 2, 3) to make each edit distinct.
 */
async function untilFileRunFirst(attempt: (n: number) => Promise<boolean>): Promise<void> {
  for (let n = 1; n <= 3; n++) if (await attempt(n)) return;
  expect.fail("an interval reconcile came before the file change's three times");
}

/** The description of `api_keys.a` in the configuration now. */
let currentA = "a-v1";

/** Writes the configuration and waits for the first reconcile after it: the file change's, or an interval's. */
async function editAndWait(a: string, withC = true) {
  currentA = a;
  const from = watcher.events().length;
  server.resetRequests();
  scratch.write("config/main.yaml", config(a, withC));
  const edit = await watcher.waitForEvent((e) => fileRun(e) || intervalRun(e), { from });
  return { edit, fileFirst: !trigger(edit.event).interval };
}

describe("a file-change reconcile after drift", () => {
  it("applies the edit, sends nothing to the drifted object, and the interval heals it", async () => {
    await untilFileRunFirst(async (n) => {
      await afterInterval();
      const [b] = await keysDescribed(server, "b-v1");
      const drift = await callApi(server, "PATCH", `/api_keys/${b?.id}`, { description: `b by hand ${n}` });
      expect(drift.status).toBe(200);
      const { edit, fileFirst } = await editAndWait(`a-v${n + 1}`);
      if (!fileFirst) return false; // the interval healed b: try again
      expect(edit.event.changes).toEqual([{ address: "api_keys.a", action: "update" }]);
      expect((edit.event.reads as { live: string }).live).toBe("partial");
      expect(server.mutations().filter((r) => r.path.endsWith(b?.id as string))).toEqual([]);

      const healed = await watcher.waitForEvent(intervalRun, { from: edit.index + 1 });
      expect(healed.event.changes).toEqual([{ address: "api_keys.b", action: "update", drift: true }]);
      expect(await keysDescribed(server, "b-v1")).toHaveLength(1);
      return true;
    });
  });

  it("reads a removed resource again before deleting it: no DELETE for one already gone", async () => {
    await untilFileRunFirst(async (n) => {
      if (n > 1) {
        // The interval came first and forgot c: put it back before trying again.
        await editAndWait(currentA, true);
        expect(await keysDescribed(server, "c-v1")).toHaveLength(1);
      }
      await afterInterval();
      const [c] = await keysDescribed(server, "c-v1");
      expect((await callApi(server, "DELETE", `/api_keys/${c?.id}`)).status).toBe(204);
      // Only c leaves the configuration: a stays as it is, so the edit must send nothing at all.
      const { edit, fileFirst } = await editAndWait(currentA, false);
      if (!fileFirst) return false;
      expect((edit.event.reads as { live: string }).live).toBe("partial");
      expect(server.mutations()).toEqual([]);
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toContain(`GET /api_keys/${c?.id}`);
      expect(edit.event.msg).not.toMatch(/failed/);
      return true;
    });
  });
});
