/**
 * The watch scheduler on fake timers: runs, merges, intervals and backoffs are checked against the
 * fake clock, so a loaded machine cannot make a gap look longer or shorter than it is.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Backoff } from "../../src/watch/backoff.js";
import { type RunOutcome, Scheduler } from "../../src/watch/scheduler.js";
import { fileTrigger, type Trigger } from "../../src/watch/trigger.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Advances the fake clock by `ms`, running the timers and promise jobs it reaches. */
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A run's work on the (fake) clock: resolves after `ms`, or at once when `signal` aborts. */
function work(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

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
      const start = Date.now();
      try {
        await work(opts.runMs, signal);
      } finally {
        active--;
      }
      runs.push({ trigger, start, end: Date.now() });
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
    const start = Date.now();
    h.scheduler.start();
    await sleep(390);
    await h.scheduler.stop();
    // startup at 0, then 120, 240, 360: 4 runs (5 would mean the period does not count from the end
    // of the previous run).
    expect(h.runs.map((r) => r.start)).toEqual([0, 120, 240, 360].map((t) => t + start));
    const gaps = h.runs.slice(1).map((r, i) => r.start - (h.runs[i]?.end ?? 0));
    expect(gaps).toEqual([100, 100, 100]);
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
    // Each wait is drawn in [d/2, d]: the first in [100, 200], the second in [200, 400].
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[0]).toBeLessThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeLessThanOrEqual(400);
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
    // A run of an hour: stop() ends it without the clock moving.
    const h = harness({ runMs: 3_600_000 });
    h.scheduler.start();
    await sleep(30);
    h.scheduler.trigger(fileTrigger(["/c/a.yaml"]));
    const stopAt = Date.now();
    await h.scheduler.stop();
    expect(h.runs[0]?.end).toBe(stopAt);
    expect(h.runs).toHaveLength(1);
    h.scheduler.trigger(fileTrigger(["/c/b.yaml"]));
    await sleep(50);
    expect(h.runs).toHaveLength(1);
    expect(h.scheduler.state).toBe("stopped");
  });
});
