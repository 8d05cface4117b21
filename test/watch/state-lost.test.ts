/**
 * `tgw watch -f` whose state file is deleted behind it: the next reconcile rebuilds the state from
 * the ownership markers (they carry the watcher's own lineage), says so in the log, and goes on; it
 * never loops on `state_conflict`. The objects are neither created again nor deleted, and the key's
 * token file stays.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type LogEvent, scratchConfig, startWatch, type Watcher } from "./child.js";

const CONFIG =
  "stack: watch-lost\napi_keys:\n  ci:\n    description: ci\ntunnel_group_backends:\n  web: {}\n";

let server: TestServer;
let watcher: Watcher;
const scratch = scratchConfig("tgw-watch-lost-", { "config/main.yaml": CONFIG });
const stateFile = join(scratch.dir, ".tgw", "state.json");
const succeeded = (e: LogEvent) => e.event === "reconcile_succeeded";

beforeAll(async () => {
  server = await startTestServer();
  watcher = startWatch({ dir: scratch.dir, api: server, args: ["--log-format", "json", "--interval", "1s"] });
  await watcher.waitForEvent(succeeded, { timeoutMs: 30_000 });
});
afterAll(async () => {
  await watcher?.stop();
  await server?.close();
  scratch.cleanup();
});

it("rebuilds a deleted state from its markers, reports it, and keeps reconciling", async () => {
  const before = JSON.parse(readFileSync(stateFile, "utf8")) as {
    lineage: string;
    resources: Record<string, { id: string }>;
  };
  const token = readFileSync(join(scratch.dir, ".tgw", "secrets", "ci.token"), "utf8");
  server.resetRequests();
  const from = watcher.events().length;
  rmSync(stateFile);
  rmSync(`${stateFile}.backup`, { force: true });

  const { event, index } = await watcher.waitForEvent(
    (e) => e.event === "warning" && String(e.msg).includes("was deleted or replaced"),
    { from, timeoutMs: 30_000 },
  );
  expect(event.msg).toContain("2 objects were recovered from their ownership markers and recorded again");
  // Two more reconciles after the rebuild, both fine.
  const next = await watcher.waitForEvent(succeeded, { from: index + 1, timeoutMs: 30_000 });
  await watcher.waitForEvent(succeeded, { from: next.index + 1, timeoutMs: 30_000 });
  expect(
    watcher
      .events()
      .slice(from)
      .filter((e) => e.event === "reconcile_failed"),
  ).toEqual([]);

  expect(existsSync(stateFile)).toBe(true);
  const after = JSON.parse(readFileSync(stateFile, "utf8")) as typeof before;
  expect(after.lineage).toBe(before.lineage);
  expect(after.resources["api_keys.ci"]?.id).toBe(before.resources["api_keys.ci"]?.id);
  expect(after.resources["tunnel_group_backends.web"]?.id).toBe(
    before.resources["tunnel_group_backends.web"]?.id,
  );
  expect(server.mutations()).toEqual([]);
  expect(readFileSync(join(scratch.dir, ".tgw", "secrets", "ci.token"), "utf8")).toBe(token);
});
