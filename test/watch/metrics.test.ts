/**
 * `GET /metrics` of `tgw watch`: Prometheus text from prom-client, with reconciles by result, their
 * duration, changes applied by action and kind, drift by kind, API requests by method and status, and
 * the time of the last success. Runs the real CLI against a test server.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, keysDescribed, scratchConfig, startWatch } from "./child.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** The value of one sample (`name{labels}`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

it("serves Prometheus metrics that follow the reconciles, the changes, the drift and the API calls", async () => {
  const scratch = scratchConfig("tgw-watch-metrics-", {
    "config/main.yaml": "stack: metrics\napi_keys:\n  ci:\n    description: metrics-a\n",
  });
  const w = startWatch({
    dir: scratch.dir,
    api: server,
    args: ["--log-format", "json", "--interval", "1s", "--health-port", "0"],
  });
  try {
    await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 20_000 });
    const metricsUrl = String(w.events()[0]?.healthUrl).replace(/\/healthz$/, "/metrics");
    let res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    let text = await res.text();
    expect(text).toContain("# TYPE tgw_reconciles_total counter");
    expect(text).toContain("# TYPE tgw_reconcile_duration_seconds histogram");
    expect(sample(text, 'tgw_reconciles_total{result="success",mode="apply"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tgw_changes_applied_total{action="create",kind="api_key"}')).toBe(1);
    expect(sample(text, 'tgw_api_requests_total{method="POST",status="201"}')).toBe(1);
    expect(sample(text, "tgw_last_successful_reconcile_timestamp_seconds")).toBeGreaterThan(
      Date.now() / 1000 - 600,
    );
    expect(sample(text, "tgw_leader")).toBe(1);

    const [key] = await keysDescribed(server, "metrics-a");
    const from = w.events().length;
    expect((await callApi(server, "DELETE", `/api_keys/${key?.id}`)).status).toBe(204);
    await w.waitForEvent((e) => e.event === "reconcile_succeeded" && (e.changes as unknown[]).length > 0, {
      from,
      timeoutMs: 20_000,
    });
    res = await fetch(metricsUrl);
    text = await res.text();
    expect(sample(text, 'tgw_drift_detected_total{kind="api_key"}')).toBe(1);
    expect(sample(text, 'tgw_changes_applied_total{action="create",kind="api_key"}')).toBe(2);
    // Nothing secret: no token, no API key in the exposition.
    expect(text).not.toContain(server.token);
    expect(text).not.toMatch(/tgw_[a-z0-9]{20,}/);
  } finally {
    await w.stop();
    scratch.cleanup();
  }
});
