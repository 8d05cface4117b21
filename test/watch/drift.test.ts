/**
 * Drift: a resource deleted or changed through the API behind the watcher's back is corrected by the
 * next interval run; with `--no-self-heal` it is only reported (no call), and a file change is still
 * applied.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, keysDescribed, type LogEvent, scratchConfig, startWatch } from "./child.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const keyConfig = (stack: string, description: string) =>
  `stack: ${stack}\napi_keys:\n  ci:\n    description: ${description}\n`;
const intervalRun = (e: LogEvent) =>
  e.event === "reconcile_succeeded" && (e.trigger as { interval: boolean }).interval;

describe("self-heal (default)", () => {
  it("recreates a resource deleted through the API, and reverts a change, on the next interval", async () => {
    const scratch = scratchConfig("tgw-watch-drift-", { "config/main.yaml": keyConfig("heal", "heal-a") });
    const w = startWatch({
      dir: scratch.dir,
      api: server,
      args: ["--log-format", "json", "--interval", "1s"],
    });
    try {
      await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 20_000 });
      const [before] = await keysDescribed(server, "heal-a");
      expect(before).toBeDefined();

      let from = w.events().length;
      expect((await callApi(server, "DELETE", `/api_keys/${before?.id}`)).status).toBe(204);
      const healed = await w.waitForEvent((e) => intervalRun(e) && (e.changes as unknown[]).length > 0, {
        from,
      });
      expect(healed.event.changes).toEqual([{ address: "api_keys.ci", action: "create", drift: true }]);
      expect(healed.event.msg).toMatch(/\(interval\): applied 1 create: \+ api_keys\.ci \(drift\)/);
      const after = await keysDescribed(server, "heal-a");
      expect(after).toHaveLength(1);
      expect(after[0]?.id).not.toBe(before?.id);

      from = w.events().length;
      await callApi(server, "PATCH", `/api_keys/${after[0]?.id}`, { description: "changed by hand" });
      const reverted = await w.waitForEvent((e) => intervalRun(e) && (e.changes as unknown[]).length > 0, {
        from,
      });
      expect(reverted.event.changes).toEqual([{ address: "api_keys.ci", action: "update", drift: true }]);
      expect(await keysDescribed(server, "heal-a")).toHaveLength(1);
      expect(await w.stop()).toBe(0);
    } finally {
      await w.stop();
      scratch.cleanup();
    }
  });
});

describe("--no-self-heal", () => {
  it("only reports drift on interval runs, then applies a file change", async () => {
    const scratch = scratchConfig("tgw-watch-report-", {
      "config/main.yaml": keyConfig("report", "report-a"),
    });
    const w = startWatch({
      dir: scratch.dir,
      api: server,
      args: ["--log-format", "json", "--interval", "1s", "--no-self-heal", "--health-port", "0"],
    });
    try {
      const startup = await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 20_000 });
      expect(startup.event).toMatchObject({
        mode: "apply",
        changes: [{ address: "api_keys.ci", action: "create" }],
      });
      const healthUrl = String(w.events()[0]?.healthUrl);
      const [key] = await keysDescribed(server, "report-a");

      const from = w.events().length;
      await callApi(server, "DELETE", `/api_keys/${key?.id}`);
      server.resetRequests();
      const first = await w.waitForEvent((e) => intervalRun(e) && (e.changes as unknown[]).length > 0, {
        from,
      });
      const second = await w.waitForEvent((e) => intervalRun(e) && (e.changes as unknown[]).length > 0, {
        from: first.index + 1,
      });
      for (const { event } of [first, second]) {
        expect(event).toMatchObject({
          mode: "plan",
          changes: [{ address: "api_keys.ci", action: "create", drift: true }],
        });
        expect(event.msg).toMatch(
          /\(interval\): found 1 create: \+ api_keys\.ci \(drift\); not applied \(--no-self-heal\)/,
        );
      }
      expect(server.mutations()).toEqual([]);
      expect(await keysDescribed(server, "report-a")).toEqual([]);
      const health = await fetch(healthUrl);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: "ok",
        drift: [{ address: "api_keys.ci", action: "create" }],
      });

      const edit = w.events().length;
      scratch.write("config/main.yaml", keyConfig("report", "report-b"));
      const applied = await w.waitForEvent(
        (e) => e.event === "reconcile_succeeded" && (e.trigger as { files: string[] }).files.length > 0,
        { from: edit },
      );
      expect(applied.event).toMatchObject({
        mode: "apply",
        changes: [{ address: "api_keys.ci", action: "create" }],
      });
      expect(await keysDescribed(server, "report-b")).toHaveLength(1);
      expect(await w.stop()).toBe(0);
    } finally {
      await w.stop();
      scratch.cleanup();
    }
  });
});
