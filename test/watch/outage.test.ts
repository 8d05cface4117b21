/**
 * The API goes away for a while (a proxy the test controls closes every connection): the watcher
 * backs off visibly in the log, never loops tightly (connection attempts are counted at the proxy),
 * reports `failing` on /healthz, validates edits made meanwhile at once (an invalid one is reported
 * without waiting for the API) and applies the valid one once the API is back.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { keysDescribed, type LogEvent, scratchConfig, startWatch, type Watcher } from "./child.js";
import { startProxy, type TcpProxy } from "./proxy.js";

let server: TestServer;
let proxy: TcpProxy;
let watcher: Watcher;
const config = (d: string) => `stack: watch-outage\napi_keys:\n  ci:\n    description: ${d}\n`;
const scratch = scratchConfig("tgw-watch-outage-", { "config/main.yaml": config("before") });

beforeAll(async () => {
  server = await startTestServer();
  proxy = await startProxy(server.url);
  watcher = startWatch({
    dir: scratch.dir,
    api: { url: proxy.url, token: server.token },
    args: [
      ...["--log-format", "json", "--interval", "1s", "--debounce", "100ms"],
      ...["--backoff-max", "2s", "--health-port", "0"],
    ],
  });
  await watcher.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 20_000 });
});

afterAll(async () => {
  await watcher?.stop();
  await proxy?.close();
  await server?.close();
  scratch.cleanup();
});

it("backs off while the API is down, without a tight loop, then converges", async () => {
  const healthUrl = String(watcher.events()[0]?.healthUrl);
  const from = watcher.events().length;
  proxy.down();
  const before = proxy.connections();
  const downAt = performance.now();

  // Edits made while backing off are validated at once (no API needed), and queued for the retry.
  const backingOff = await watcher.waitForEvent((e) => e.event === "retry_scheduled", { from });
  scratch.write("config/main.yaml", config("[oops"));
  const invalid = await watcher.waitForEvent((e) => e.event === "config_invalid", { from: backingOff.index });
  expect(invalid.event.run).toBeUndefined();
  expect(invalid.event.msg).toMatch(/^check \(file change: config\/main\.yaml\): invalid configuration/);
  scratch.write("config/main.yaml", config("after"));
  const queued = await watcher.waitForEvent((e) => e.event === "config_queued", { from: invalid.index });
  expect(queued.event.msg).toMatch(/configuration valid; it will be applied by the next attempt at /);

  await new Promise((r) => setTimeout(r, 6_000 - (performance.now() - downAt)));

  const during = watcher.events().slice(from);
  const failed = during.filter((e) => e.event === "reconcile_failed");
  const retries = during.filter((e) => e.event === "retry_scheduled");
  const attempts = proxy.connections() - before;
  const downSeconds = (performance.now() - downAt) / 1000;
  console.log(
    `tgw watch: API down ${downSeconds.toFixed(1)} s: ${failed.length} reconcile attempts, ${attempts} connection attempts; waits ${retries.map((r) => r.inMs).join(", ")} ms`,
  );
  // Backoff visible: every failure is followed by a retry line with a growing, capped wait.
  expect(failed.length).toBeGreaterThanOrEqual(2);
  expect(retries.length).toBe(failed.length);
  expect(retries.map((r) => r.failures)).toEqual(retries.map((_, i) => i + 1));
  expect(retries.every((r) => (r.inMs as number) >= 500 && (r.inMs as number) <= 2_000)).toBe(true);
  expect(String(retries[0]?.msg)).toMatch(/^retrying in \d+(\.\d)?(ms|s) \(1 failure in a row\)$/);
  expect(String(failed[0]?.msg)).toMatch(
    /failed after .*: \[network\] GET http:\/\/127\.0\.0\.1:\d+\/\S+ failed after [12] attempts?: /,
  );
  // No tight loop: a handful of reconciles in 6 s. The first costs the 4 lists in flight when the API
  // went down and at most one probe between them; each later attempt one request, the probe that finds
  // the API still down (the client retries nothing else: src/client/outage.ts).
  expect(failed.length).toBeLessThanOrEqual(5);
  expect(attempts).toBeLessThanOrEqual(4 + failed.length);
  const health = await fetch(healthUrl);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ status: "failing", lastError: { kind: "reconcile" } });

  const upFrom = watcher.events().length;
  proxy.up();
  const { event } = await watcher.waitForEvent(
    (e: LogEvent) => e.event === "reconcile_succeeded" && (e.changes as unknown[]).length > 0,
    { from: upFrom, timeoutMs: 10_000 },
  );
  // The retry keeps the file change among its reasons, so it applies it.
  expect(event).toMatchObject({ mode: "apply", changes: [{ address: "api_keys.ci", action: "update" }] });
  expect((event.trigger as { files: string[] }).files).toEqual(["config/main.yaml"]);
  expect(await keysDescribed(server, "after")).toHaveLength(1);
  const healthy = await fetch(healthUrl);
  expect(healthy.status).toBe(200);
  expect(await healthy.json()).toMatchObject({ status: "ok", consecutiveFailures: 0 });
});
