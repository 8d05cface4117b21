/**
 * The status page's model (src/watch/status-page.ts) folded from events, plans and states, and its two
 * endpoints on the health server (`GET /`, `GET /status.json`). The page in a real browser, against a
 * running watcher: test/watch/status-browser.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { StateSnapshot } from "../../src/state/index.js";
import { type HealthServer, startHealthServer } from "../../src/watch/health.js";
import { initialStatus } from "../../src/watch/status.js";
import { RECENT_RECONCILES, StatusBoard } from "../../src/watch/status-page.js";
import { fileTrigger, intervalTrigger, startupTrigger } from "../../src/watch/trigger.js";

const snapshot = (serial: number, ids: Record<string, string>): StateSnapshot => ({
  version: 1,
  lineage: "lin-1",
  serial,
  stack: "prod",
  resources: Object.fromEntries(
    Object.entries(ids).map(([address, id]) => [
      address,
      { address, kind: "api_key", id, fingerprint: "f", appliedAt: "2025-01-01T00:00:00Z" },
    ]),
  ),
});

/** A board whose clock and revision are fixed. */
function board(revision = "0123456789abcdef") {
  return new StatusBoard({ revision: () => revision, now: () => new Date("2025-06-01T12:00:00Z") });
}

describe("StatusBoard", () => {
  it("lists resources in sync after a first apply, with their ids and the reconcile", () => {
    const b = board();
    b.observe({ type: "reconcile_started", run: 1, trigger: startupTrigger(), mode: "apply" });
    b.planned([{ address: "api_keys.ci", action: "create" }]);
    expect(b.view().resources).toMatchObject([{ address: "api_keys.ci", id: null, sync: "pending" }]);
    expect(b.view().reconciles).toMatchObject([{ run: 1, result: "running", durationMs: null }]);
    const change = { address: "api_keys.ci", action: "create" } as const;
    b.observe({ type: "change_applied", run: 1, change });
    b.state(snapshot(1, { "api_keys.ci": "key_1", "api_keys.old": "key_0" }));
    b.observe({
      type: "reconcile_succeeded",
      run: 1,
      trigger: startupTrigger(),
      mode: "apply",
      durationMs: 42,
      changes: [change],
    });
    const v = b.view();
    expect(v.stack).toBe("prod");
    expect(v.state).toEqual({ serial: 1, lineage: "lin-1" });
    expect(v.resources).toEqual([
      {
        address: "api_keys.ci",
        id: "key_1",
        sync: "in_sync",
        planned: null,
        error: null,
        lastChange: { run: 1, at: "2025-06-01T12:00:00.000Z", action: "create", drift: false },
      },
      { address: "api_keys.old", id: "key_0", sync: "in_sync", planned: null, error: null, lastChange: null },
    ]);
    expect(v.reconciles).toEqual([
      {
        run: 1,
        trigger: "startup",
        mode: "apply",
        startedAt: "2025-06-01T12:00:00.000Z",
        durationMs: 42,
        result: "succeeded",
        changes: { create: 1 },
        drift: 0,
        revision: "0123456789abcdef",
        message: null,
      },
    ]);
  });

  it("marks a drift corrected as healed, a failed change as failing, and drops deleted resources", () => {
    const b = board();
    b.state(snapshot(1, { "api_keys.a": "key_a", "api_keys.b": "key_b" }));
    b.observe({ type: "reconcile_started", run: 2, trigger: intervalTrigger(), mode: "apply" });
    b.planned([
      { address: "api_keys.a", action: "update", drift: true },
      { address: "api_keys.b", action: "delete" },
    ]);
    b.observe({
      type: "change_applied",
      run: 2,
      change: { address: "api_keys.a", action: "update", drift: true },
    });
    b.observe({
      type: "reconcile_failed",
      run: 2,
      trigger: intervalTrigger(),
      mode: "apply",
      durationMs: 7,
      code: "api",
      message: "DELETE /api_keys/key_b: 500 internal",
      applied: [{ address: "api_keys.a", action: "update", drift: true }],
    });
    let v = b.view();
    expect(v.resources).toMatchObject([
      { address: "api_keys.a", sync: "healed", lastChange: { run: 2, drift: true } },
      {
        address: "api_keys.b",
        sync: "failing",
        planned: { action: "delete" },
        error: expect.stringContaining("500"),
      },
    ]);
    expect(v.reconciles[0]).toMatchObject({ result: "failed", changes: { update: 1 }, drift: 1 });

    b.observe({ type: "reconcile_started", run: 3, trigger: intervalTrigger(), mode: "apply" });
    b.planned([{ address: "api_keys.b", action: "delete" }]);
    b.observe({ type: "change_applied", run: 3, change: { address: "api_keys.b", action: "delete" } });
    b.state(snapshot(3, { "api_keys.a": "key_a" }));
    v = b.view();
    expect(v.resources.map((r) => [r.address, r.sync])).toEqual([["api_keys.a", "healed"]]);
  });

  it("under --no-self-heal shows drift found as drifted, and a later plan without it as in sync", () => {
    const b = board();
    b.state(snapshot(1, { "api_keys.a": "key_a" }));
    b.observe({ type: "reconcile_started", run: 2, trigger: intervalTrigger(), mode: "plan" });
    const drift = { address: "api_keys.a", action: "create", drift: true } as const;
    b.planned([drift]);
    b.observe({
      type: "reconcile_succeeded",
      run: 2,
      trigger: intervalTrigger(),
      mode: "plan",
      durationMs: 3,
      changes: [drift],
    });
    expect(b.view().resources).toMatchObject([
      { sync: "drifted", planned: { action: "create", drift: true } },
    ]);
    expect(b.view().reconciles[0]).toMatchObject({ mode: "plan", changes: { create: 1 }, drift: 1 });
    b.planned([]);
    expect(b.view().resources).toMatchObject([{ sync: "in_sync", planned: null }]);
  });

  it("records an invalid configuration, and keeps the last RECENT_RECONCILES reconciles, newest first", () => {
    const b = board();
    b.observe({
      type: "config_invalid",
      run: 1,
      trigger: fileTrigger(["/nowhere/config/main.yaml"]),
      durationMs: 1,
      problems: [
        { file: "config/main.yaml", line: 3, col: 5, path: "api_keys.ci", message: "unknown field" },
      ],
      repeated: false,
    });
    expect(b.view().reconciles[0]).toMatchObject({
      result: "invalid_config",
      message: "invalid configuration: config/main.yaml:3:5: api_keys.ci: unknown field",
    });
    for (let run = 2; run <= 30; run++) {
      b.observe({ type: "reconcile_started", run, trigger: intervalTrigger(), mode: "apply" });
    }
    const runs = b.view().reconciles.map((r) => r.run);
    expect(runs).toHaveLength(RECENT_RECONCILES);
    expect(runs[0]).toBe(30);
    expect(runs.at(-1)).toBe(30 - RECENT_RECONCILES + 1);
  });
});

describe("status page endpoints", () => {
  let server: HealthServer | undefined;
  afterEach(async () => server?.close());

  it("serves the page with a strict CSP and /status.json; both 404 without a page", async () => {
    const b = board();
    b.state(snapshot(1, { "api_keys.<script>": "key_1" }));
    server = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      status: initialStatus,
      page: () => ({ ...b.view(), health: initialStatus() }),
    });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toMatch(
      /default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; connect-src 'self'/,
    );
    const html = await page.text();
    expect(html).toContain('fetch("status.json"');
    expect(html).not.toContain("innerHTML");

    const json = await fetch(`${server.url}/status.json`);
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({
      stack: "prod",
      resources: [{ address: "api_keys.<script>", id: "key_1", sync: "in_sync" }],
      health: { status: "starting" },
    });
    expect((await fetch(`${server.url}/status.json`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}/`, { method: "HEAD" })).status).toBe(200);
    await server.close();

    server = await startHealthServer({ host: "127.0.0.1", port: 0, status: initialStatus });
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    expect((await fetch(`${server.url}/status.json`)).status).toBe(404);
  });
});
