/**
 * A reconcile that failed after applying changes made progress: the runner says so, the backoff
 * restarts instead of growing (the retry comes after the first wait, `failures` stays 0), and the
 * health status is `degraded` rather than `failing`. A failure that applied nothing still counts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { DesiredState } from "../../src/model/desired.js";
import { Backoff } from "../../src/watch/backoff.js";
import type { WatchEvent } from "../../src/watch/events.js";
import { createRunner } from "../../src/watch/run.js";
import { type RetryScheduled, Scheduler } from "../../src/watch/scheduler.js";
import { foldStatus, initialStatus } from "../../src/watch/status.js";

const desired = { stack: "s", files: [], resources: [] } as unknown as DesiredState;

it("a failed reconcile that applied changes is progress: backoff restarts, health says degraded", async () => {
  const events: WatchEvent[] = [];
  // Attempts 1-3 apply one change each and then fail; attempt 4 applies nothing and fails; 5 succeeds.
  let attempt = 0;
  const runner = createRunner({
    selfHeal: true,
    emit: (e) => events.push(e),
    deps: {
      load: async () => desired,
      configProblems: () => undefined,
      async reconcile(_desired, request) {
        attempt++;
        if (attempt === 5) return [];
        if (attempt <= 3) request.onApplied({ address: `api_keys.k${attempt}`, action: "create" });
        throw new Error("POST /api_keys: 503");
      },
    },
  });
  const retries: RetryScheduled[] = [];
  const backoff = new Backoff({ initialMs: 20, maxMs: 10_000 }, () => 0.5);
  const scheduler = new Scheduler({
    intervalMs: 3_600_000,
    jitter: 0,
    backoff,
    run: runner.run,
    onRetryScheduled: (r) => retries.push(r),
  });
  scheduler.start();
  for (let i = 0; i < 200 && !events.some((e) => e.type === "reconcile_succeeded"); i++) await sleep(20);
  await scheduler.stop();

  expect(retries.map((r) => [r.failures, r.progress === true])).toEqual([
    [0, true],
    [0, true],
    [0, true],
    [1, false],
  ]);
  // Each progress retry waits what a first failure waits (15 ms here), never more.
  expect(retries.slice(0, 3).every((r) => r.inMs === 15)).toBe(true);

  let status = initialStatus();
  const seen: string[] = [];
  for (const e of events) {
    status = foldStatus(status, e);
    if (e.type === "reconcile_failed" || e.type === "reconcile_succeeded") {
      seen.push(`${status.status}/${status.consecutiveFailures}`);
    }
  }
  expect(seen).toEqual(["degraded/0", "degraded/0", "degraded/0", "failing/1", "ok/0"]);
});
