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

describe("a file-change reconcile after drift", () => {
  it("applies the edit, sends nothing to the drifted object, and the interval heals it", async () => {
    await afterInterval();
    const [b] = await keysDescribed(server, "b-v1");
    expect((await callApi(server, "PATCH", `/api_keys/${b?.id}`, { description: "b by hand" })).status).toBe(
      200,
    );
    const from = watcher.events().length;
    server.resetRequests();
    scratch.write("config/main.yaml", config("a-v2"));
    const edit = await watcher.waitForEvent((e) => fileRun(e) || intervalRun(e), { from });
    // An interval that came first would have read everything: the case under test did not happen.
    if (trigger(edit.event).interval) return;
    expect(edit.event.changes).toEqual([{ address: "api_keys.a", action: "update" }]);
    expect((edit.event.reads as { live: string }).live).toBe("partial");
    expect(server.mutations().filter((r) => r.path.endsWith(b?.id as string))).toEqual([]);

    const healed = await watcher.waitForEvent(intervalRun, { from: edit.index + 1 });
    expect(healed.event.changes).toEqual([{ address: "api_keys.b", action: "update", drift: true }]);
    expect(await keysDescribed(server, "b-v1")).toHaveLength(1);
  });

  it("reads a removed resource again before deleting it: no DELETE for one already gone", async () => {
    await afterInterval();
    const [c] = await keysDescribed(server, "c-v1");
    expect((await callApi(server, "DELETE", `/api_keys/${c?.id}`)).status).toBe(204);
    const from = watcher.events().length;
    server.resetRequests();
    scratch.write("config/main.yaml", config("a-v2", false));
    const edit = await watcher.waitForEvent((e) => fileRun(e) || intervalRun(e), { from });
    if (trigger(edit.event).interval) return;
    expect((edit.event.reads as { live: string }).live).toBe("partial");
    expect(server.mutations()).toEqual([]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toContain(`GET /api_keys/${c?.id}`);
    expect(edit.event.msg).not.toMatch(/failed/);
  });
});
