/**
 * When reconciles run: the state machine of `tgw watch`.
 *
 * ```
 *            trigger                 run ok / invalid, nothing pending
 *   idle ─────────────> running ──────────────────────────────────────> idle (interval timer armed)
 *    ^                   │  │ run ok / invalid, triggers arrived meanwhile
 *    │                   │  └──────────────> running (one follow-up run with every reason merged)
 *    │ retry timer       │ run failed
 *    └──── backoff <─────┘   (triggers arriving now wait for the retry; file changes are validated
 *                              at once through `check`, which never calls the API)
 *   any state ──stop()──> stopped (the run in flight is aborted through its signal and awaited)
 * ```
 *
 * Rules: never two runs at once; triggers arriving during a run or a backoff are merged into one
 * follow-up run (src/watch/trigger.ts); the periodic run comes `intervalMs` (± `jitter`) after the
 * end of the last run of any kind; after a failure the next attempt waits for src/watch/backoff.ts;
 * a failed run that applied changes made progress: the backoff restarts instead of growing.
 */
import { type Backoff, retryAfterOf } from "./backoff.js";
import { intervalTrigger, mergeTriggers, startupTrigger, type Trigger } from "./trigger.js";

/** What a run reports back to the scheduler. */
export type RunOutcome =
  /** Reconciled (or drift reported): the failure count resets and the interval timer restarts. */
  | { kind: "ok" }
  /** The configuration is invalid: nothing was sent; wait for a file change or the next interval. */
  | { kind: "invalid" }
  /** The reconcile failed (API, network, lock...): try again after a backoff. */
  | { kind: "failed"; error: unknown }
  /**
   * The reconcile failed after applying changes: it made progress, which is not a failure for the
   * backoff (the count restarts); it is tried again after the first wait.
   */
  | { kind: "progress"; error: unknown };

/** The scheduler's current state (see the module diagram). */
export type SchedulerState = "idle" | "running" | "backoff" | "stopped";

/** A retry that has been scheduled after a failure. */
export interface RetryScheduled {
  /** Wait before the attempt, in ms. */
  inMs: number;
  /** Consecutive failures so far (1 after the first). */
  failures: number;
  /** The trigger the retry will run with. */
  trigger: Trigger;
  /** What the API asked for (`Retry-After`), when the failure carried it. */
  retryAfterMs?: number;
  /** The failed reconcile made progress (applied changes): not counted as a failure. */
  progress?: boolean;
}

/** Settings and callbacks of a `Scheduler`. */
export interface SchedulerOptions {
  /** Period of the drift check, in ms (> 0). */
  intervalMs: number;
  /** Share of the interval each wait may vary by, in [0, 1): 0.1 is ±10 %. */
  jitter: number;
  backoff: Backoff;
  /**
   * One reconcile. `signal` aborts when the scheduler stops: the run should let calls in flight
   * finish and start nothing new. A throw counts as `{ kind: "failed" }`.
   */
  run(trigger: Trigger, signal: AbortSignal): Promise<RunOutcome>;
  /** Validates a file change that arrives while backing off (no API calls). Errors are ignored. */
  check?(trigger: Trigger): Promise<void>;
  /** Told of each retry scheduled after a failure (for the log and the health status). */
  onRetryScheduled?(retry: RetryScheduled): void;
  /** Uniform in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Runs reconciles one at a time, on triggers, on a period and after backoffs. */
export class Scheduler {
  readonly #opts: SchedulerOptions;
  readonly #random: () => number;
  readonly #stop = new AbortController();
  #state: SchedulerState = "idle";
  #pending: Trigger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #nextAt: number | undefined;
  #running: Promise<void> = Promise.resolve();
  #checking: Promise<void> = Promise.resolve();

  /** @throws RangeError when `intervalMs` is not positive or `jitter` is outside [0, 1). */
  constructor(opts: SchedulerOptions) {
    if (!(opts.intervalMs > 0)) throw new RangeError(`interval must be positive, got ${opts.intervalMs} ms`);
    if (!(opts.jitter >= 0 && opts.jitter < 1))
      throw new RangeError(`jitter must be in [0, 1), got ${opts.jitter}`);
    this.#opts = opts;
    this.#random = opts.random ?? Math.random;
  }

  /** The current state. */
  get state(): SchedulerState {
    return this.#state;
  }

  /** Epoch ms of the next timed run (interval or retry); undefined while running or stopped. */
  get nextRunAt(): number | undefined {
    return this.#nextAt;
  }

  /** Starts with the startup reconcile. */
  start(): void {
    this.trigger(startupTrigger());
  }

  /** Asks for a reconcile: now when idle, else merged into the follow-up run. Ignored once stopped. */
  trigger(trigger: Trigger): void {
    if (this.#state === "stopped") return;
    this.#pending = mergeTriggers(this.#pending, trigger);
    if (this.#state === "idle") {
      this.#startRun();
    } else if (this.#state === "backoff" && trigger.files.length > 0 && this.#opts.check) {
      const check = this.#opts.check;
      this.#checking = this.#checking.then(() => check(trigger)).catch(() => {});
    }
  }

  /**
   * Stops: no new run starts; the run in flight is aborted through its signal and awaited (so its
   * calls in flight finish and its lock is released before this resolves).
   */
  async stop(reason: unknown = new Error("stopped")): Promise<void> {
    if (this.#state !== "stopped") {
      this.#state = "stopped";
      this.#clearTimer();
      this.#stop.abort(reason);
    }
    await Promise.all([this.#running, this.#checking]);
  }

  #startRun(): void {
    const trigger = this.#pending;
    if (trigger === undefined) return;
    this.#pending = undefined;
    this.#clearTimer();
    this.#state = "running";
    this.#running = this.#runOnce(trigger);
  }

  async #runOnce(trigger: Trigger): Promise<void> {
    let outcome: RunOutcome;
    try {
      outcome = await this.#opts.run(trigger, this.#stop.signal);
    } catch (error) {
      outcome = { kind: "failed", error };
    }
    if (this.#state === "stopped") return;

    if (outcome.kind === "failed" || outcome.kind === "progress") {
      const progress = outcome.kind === "progress";
      const inMs = progress
        ? this.#opts.backoff.progress(outcome.error)
        : this.#opts.backoff.fail(outcome.error);
      const retry = mergeTriggers(this.#pending, { ...trigger, retry: trigger.retry + 1 });
      this.#pending = retry;
      this.#state = "backoff";
      this.#arm(inMs, () => {
        this.#state = "idle";
        this.#startRun();
      });
      const retryAfterMs = retryAfterOf(outcome.error);
      this.#opts.onRetryScheduled?.({
        inMs,
        failures: this.#opts.backoff.failures,
        trigger: retry,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(progress ? { progress } : {}),
      });
      return;
    }

    // An invalid configuration never reached the API: it neither resets nor extends the backoff.
    if (outcome.kind === "ok") this.#opts.backoff.succeed();
    this.#state = "idle";
    if (this.#pending !== undefined) {
      this.#startRun();
      return;
    }
    this.#arm(this.#jittered(this.#opts.intervalMs), () => this.trigger(intervalTrigger()));
  }

  #arm(ms: number, fire: () => void): void {
    this.#clearTimer();
    this.#nextAt = Date.now() + ms;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#nextAt = undefined;
      fire();
    }, ms);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextAt = undefined;
  }

  #jittered(ms: number): number {
    const j = this.#opts.jitter;
    return Math.max(1, Math.round(ms * (1 - j + 2 * j * this.#random())));
  }
}
