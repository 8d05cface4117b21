import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Backoff } from "../../src/watch/backoff.js";
import { type RunOutcome, Scheduler } from "../../src/watch/scheduler.js";
import { fileTrigger, type Trigger } from "../../src/watch/trigger.js";

/** A scheduler whose runs take `runMs` and answer from `outcomes` (then "ok"); records every run. */
function harness(opts: { runMs: number; intervalMs?: number; outcomes?: RunOutcome[]; backoffMs?: number }) {
  const runs: { trigger: Trigger; start: number; end: number }[] = [];
  let active = 0;
  let maxActive = 0;
  const outcomes = [...(opts.outcomes ?? [])];
  const checks: Trigger[] = [];
  const scheduler = new Scheduler({
    intervalMs: opts.intervalMs ?? 60_000,
    jitter: 0,
    backoff: new Backoff({ initialMs: opts.backoffMs ?? 200, maxMs: 400 }),
    async run(trigger, signal) {
      active++;
      maxActive = Math.max(maxActive, active);
      const start = performance.now();
      try {
        await sleep(opts.runMs, undefined, { signal }).catch(() => {});
      } finally {
        active--;
      }
      runs.push({ trigger, start, end: performance.now() });
      return outcomes.shift() ?? { kind: "ok" };
    },
    async check(trigger) {
      checks.push(trigger);
    },
  });
  return { scheduler, runs, checks, maxActive: () => maxActive };
}

describe("scheduler: when reconciles run", () => {
  it("merges triggers that arrive during a run into one follow-up run, never two at once", async () => {
    const h = harness({ runMs: 150 });
    h.scheduler.start();
    await sleep(30);
    for (const f of ["/c/a.yaml", "/c/b.yaml", "/c/a.yaml", "/c/c.yaml"]) {
      h.scheduler.trigger(fileTrigger([f]));
      await sleep(10);
    }
    await sleep(400);
    await h.scheduler.stop();
    expect(h.runs.map((r) => r.trigger)).toEqual([
      { startup: true, interval: false, files: [], retry: 0 },
      { startup: false, interval: false, files: ["/c/a.yaml", "/c/b.yaml", "/c/c.yaml"], retry: 0 },
    ]);
    expect(h.maxActive()).toBe(1);
    expect(h.runs[1]?.start).toBeGreaterThanOrEqual(h.runs[0]?.end ?? Number.POSITIVE_INFINITY);
  });

  it("runs on the interval, counted from the end of the last run", async () => {
    const h = harness({ runMs: 20, intervalMs: 100 });
    h.scheduler.start();
    await sleep(390);
    await h.scheduler.stop();
    // startup at 0, then ~120, ~240, ~360: 4 runs (3 when a busy machine delays the timers; 5 or more
    // would mean the period does not count from the end of the previous run).
    expect(h.runs.length).toBeGreaterThanOrEqual(3);
    expect(h.runs.length).toBeLessThanOrEqual(4);
    const gaps = h.runs.slice(1).map((r, i) => r.start - (h.runs[i]?.end ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(95);
    expect(h.runs.slice(1).every((r) => r.trigger.interval && !r.trigger.startup)).toBe(true);
  });

  it("after a failure retries with the same reasons after the backoff, not at once", async () => {
    const h = harness({
      runMs: 10,
      backoffMs: 200,
      outcomes: [
        { kind: "failed", error: new Error("down") },
        { kind: "failed", error: new Error("down") },
      ],
    });
    h.scheduler.trigger(fileTrigger(["/c/a.yaml"]));
    await sleep(50);
    expect(h.scheduler.state).toBe("backoff");
    h.scheduler.trigger(fileTrigger(["/c/b.yaml"])); // validated at once, applied with the retry
    await sleep(5);
    expect(h.checks.map((t) => t.files)).toEqual([["/c/b.yaml"]]);
    await sleep(800);
    await h.scheduler.stop();
    expect(h.runs.map((r) => [r.trigger.files, r.trigger.retry])).toEqual([
      [["/c/a.yaml"], 0],
      [["/c/a.yaml", "/c/b.yaml"], 1],
      [["/c/a.yaml", "/c/b.yaml"], 2],
    ]);
    const gaps = h.runs.slice(1).map((r, i) => r.start - (h.runs[i]?.end ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(95); // first wait in [100, 200]
    expect(gaps[1]).toBeGreaterThanOrEqual(195); // second in [200, 400]
  });

  it("an invalid configuration does not back off: the next edit runs at once", async () => {
    const h = harness({ runMs: 10, outcomes: [{ kind: "invalid" }] });
    h.scheduler.start();
    await sleep(40);
    expect(h.scheduler.state).toBe("idle");
    h.scheduler.trigger(fileTrigger(["/c/a.yaml"]));
    await sleep(40);
    await h.scheduler.stop();
    expect(h.runs).toHaveLength(2);
  });

  it("stop() aborts the run in flight, waits for it, and runs nothing after", async () => {
    // A run of an hour: had stop() not aborted it, the test would overrun its timeout.
    const h = harness({ runMs: 3_600_000 });
    h.scheduler.start();
    await sleep(30);
    h.scheduler.trigger(fileTrigger(["/c/a.yaml"]));
    await h.scheduler.stop();
    expect(h.runs).toHaveLength(1);
    h.scheduler.trigger(fileTrigger(["/c/b.yaml"]));
    await sleep(50);
    expect(h.runs).toHaveLength(1);
    expect(h.scheduler.state).toBe("stopped");
  });
});
