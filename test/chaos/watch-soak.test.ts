/**
 * `tgw watch` under faults: 200 resources through a reference server that answers 12 % of requests
 * with an injected fault. The loop (in-process, with the client settings `tgw watch` uses) must
 * converge after a few reconciles with no duplicate, and a reconcile that made progress must not be
 * reported `failing`. The figures (reconciles, time, statuses seen) are printed for comparison.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { engineDeps, WATCH_DEFAULTS, type WatchEvent, WatchLoop } from "../../src/watch/index.js";
import { foldStatus, initialStatus } from "../../src/watch/status.js";
import { liveAddresses } from "../helpers/live.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const FAULTS = "500=0.05,503=0.03,429=0.02,drop=0.02,seed=12,retry_after=0";
const COUNT = 200;
const root = mkdtempSync(join(tmpdir(), "tgw-watch-soak-"));
const dir = join(root, "config");
let server: TestServer;
let api: ApiClient;
let loop: WatchLoop;
const events: WatchEvent[] = [];

beforeAll(async () => {
  mkdirSync(dir);
  const lines = ["stack: watch-soak", "tunnel_group_backends:"];
  for (let i = 0; i < COUNT; i++)
    lines.push(`  b${String(i).padStart(3, "0")}:`, `    description: backend ${i}`);
  writeFileSync(join(dir, "main.yaml"), `${lines.join("\n")}\n`);
  server = await startTestServer({ faults: FAULTS });
  api = new ApiClient({
    baseUrl: server.url,
    apiKey: server.token,
    retry: { retries: WATCH_DEFAULTS.clientRetries, baseDelayMs: 5, maxDelayMs: 20 },
    probeOutages: true,
  });
});

afterAll(async () => {
  await loop?.stop();
  await api?.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

it(`converges on ${COUNT} resources at 12 % faults, degraded (not failing) while progressing`, async () => {
  const emit = (e: WatchEvent) => events.push(e);
  loop = new WatchLoop({
    roots: [dir],
    deps: engineDeps({
      paths: [dir],
      statePath: join(root, "state.json"),
      api,
      safety: {},
      lockTimeoutMs: 1_000,
      emit,
    }),
    emit,
    intervalMs: 3_600_000,
    backoff: { initialMs: 50, maxMs: 1_000 },
    poll: true,
  });
  const started = performance.now();
  await loop.start();
  for (let i = 0; i < 1_500 && !events.some((e) => e.type === "reconcile_succeeded"); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await loop.stop();

  let status = initialStatus();
  const statuses: string[] = [];
  for (const e of events) {
    status = foldStatus(status, e);
    if (e.type === "reconcile_failed" || e.type === "reconcile_succeeded") statuses.push(status.status);
  }
  const per = await liveAddresses(api, "watch-soak", { attempts: 20 });
  const duplicates = [...per.values()].reduce((n, c) => n + c - 1, 0);
  const injected = server.requests.filter((r) => [0, 429, 500, 503].includes(r.status)).length;
  console.log(
    `watch fault soak: ${COUNT} resources, faults ${FAULTS}: converged in ${seconds.toFixed(1)} s after ${statuses.length} reconcile(s) (${statuses.join(", ")}); ${server.requests.length} requests, ${injected} faults injected, ${duplicates} duplicates`,
  );
  expect(statuses.at(-1)).toBe("ok");
  expect(per.size).toBe(COUNT);
  expect(duplicates).toBe(0);
  // A failed reconcile that applied changes is `degraded`; only one that applied nothing is `failing`.
  const failed = events.filter((e) => e.type === "reconcile_failed");
  for (const [i, e] of failed.entries()) {
    if (e.type === "reconcile_failed" && e.applied.length > 0) expect(statuses[i]).toBe("degraded");
  }
});
