import { afterEach, describe, expect, it } from "vitest";
import { type HealthServer, startHealthServer } from "../../src/watch/health.js";
import { foldStatus, initialStatus, type WatchStatus } from "../../src/watch/status.js";
import { intervalTrigger } from "../../src/watch/trigger.js";

let server: HealthServer | undefined;
afterEach(async () => server?.close());

describe("health endpoint", () => {
  it("answers 503 until a reconcile succeeds, 200 after, 503 again when one fails", async () => {
    let status: WatchStatus = initialStatus();
    server = await startHealthServer({ host: "127.0.0.1", port: 0, status: () => status });
    const get = async () => {
      const res = await fetch(`${server?.url}/healthz`);
      return { code: res.status, body: (await res.json()) as WatchStatus };
    };

    let r = await get();
    expect(r.code).toBe(503);
    expect(r.body.status).toBe("starting");

    const trigger = intervalTrigger();
    status = foldStatus(status, { type: "reconcile_started", run: 1, trigger, mode: "apply" });
    status = foldStatus(status, {
      type: "reconcile_succeeded",
      run: 1,
      trigger,
      mode: "apply",
      durationMs: 12,
      changes: [{ address: "api_keys.ci", action: "create" }],
    });
    r = await get();
    expect(r.code).toBe(200);
    expect(r.body).toMatchObject({ status: "ok", runs: 1, consecutiveFailures: 0, lastError: null });
    expect(Date.parse(r.body.lastSuccessAt ?? "")).not.toBeNaN();
    expect(r.body.lastApplied).toEqual([{ address: "api_keys.ci", action: "create" }]);

    status = foldStatus(status, {
      type: "reconcile_failed",
      run: 2,
      trigger,
      mode: "apply",
      durationMs: 5,
      code: "network",
      message: "GET http://127.0.0.1:1/api_keys failed after 5 attempts: connection refused (ECONNREFUSED)",
      applied: [],
    });
    r = await get();
    expect(r.code).toBe(503);
    expect(r.body).toMatchObject({ status: "failing", consecutiveFailures: 1 });
    expect(r.body.lastError?.message).toContain("ECONNREFUSED");
    expect(r.body.lastSuccessAt).not.toBeNull();
  });

  it("serves /livez, and refuses other paths and methods", async () => {
    server = await startHealthServer({ host: "127.0.0.1", port: 0, status: initialStatus });
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    const post = await fetch(`${server.url}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("fails clearly when the port is taken", async () => {
    server = await startHealthServer({ host: "127.0.0.1", port: 0, status: initialStatus });
    const port = Number(new URL(server.url).port);
    await expect(startHealthServer({ host: "127.0.0.1", port, status: initialStatus })).rejects.toMatchObject(
      {
        code: "EADDRINUSE",
      },
    );
  });
});
