/**
 * The watch loop: keeps live state equal to the configuration until stopped. It wires the file
 * watcher (src/watch/file-watcher.ts) and the periodic timer to the scheduler (src/watch/scheduler.ts),
 * whose runs load and reconcile (src/watch/run.ts), and folds every event into the health status
 * (src/watch/status.ts). It has no I/O of its own besides the file watcher: loading, reconciling and
 * logging are injected, so the CLI wires the real ones and a test can drive it in-process.
 *
 * @example
 * const loop = new WatchLoop({ roots: ["config"], deps, emit: createLog({ format: "human", debug: false }) });
 * await loop.start();
 * process.once("SIGTERM", () => loop.stop("SIGTERM"));
 * await loop.stopped;
 */
import { Backoff, type BackoffOptions, DEFAULT_BACKOFF } from "./backoff.js";
import type { EventSink, WatchEvent } from "./events.js";
import { DEFAULT_DEBOUNCE_MS, FileWatcher } from "./file-watcher.js";
import { createRunner, type WatchDeps } from "./run.js";
import { Scheduler } from "./scheduler.js";
import { foldStatus, initialStatus, type WatchStatus } from "./status.js";
import { fileTrigger } from "./trigger.js";

/** Defaults of `tgw watch`. */
export const WATCH_DEFAULTS = {
  intervalMs: 60_000,
  /** ±10 % on each interval, so many watchers started together do not call the API in step. */
  jitter: 0.1,
  /** Quiet time after a file change (src/watch/file-watcher.ts says why not less). */
  debounceMs: DEFAULT_DEBOUNCE_MS,
  /**
   * Retries of each API call inside a reconcile (the client's default is 4): the watch retries whole
   * reconciles with its own backoff, so a call only rides out a blip and an outage shows up quickly.
   */
  clientRetries: 2,
} as const;

/** Settings of a `WatchLoop`. */
export interface WatchLoopOptions {
  /** The `-f` files and directories. */
  roots: string[];
  deps: WatchDeps;
  /** Receives every event (the log); must not throw. */
  emit: EventSink;
  /** Period of the drift check in ms (default 60 s). */
  intervalMs?: number;
  /** Share of the interval each wait may vary by (default 0.1). */
  jitter?: number;
  /** Quiet time before a file change runs, in ms (default 50). */
  debounceMs?: number;
  /** Correct drift on interval runs (default true); false: only report it. */
  selfHeal?: boolean;
  backoff?: BackoffOptions;
  /** Poll file stats instead of OS file events. */
  poll?: boolean;
}

/** A running `tgw watch`. */
export class WatchLoop {
  readonly #opts: WatchLoopOptions;
  readonly #scheduler: Scheduler;
  #watcher: FileWatcher | undefined;
  #status: WatchStatus = initialStatus();
  #stopping: Promise<void> | undefined;
  #resolveStopped!: () => void;
  /** Resolves once `stop()` has finished. */
  readonly stopped: Promise<void> = new Promise((resolve) => {
    this.#resolveStopped = resolve;
  });

  /** Prepares the loop; nothing is watched or run before `start()`. */
  constructor(opts: WatchLoopOptions) {
    this.#opts = opts;
    const runner = createRunner({
      deps: opts.deps,
      selfHeal: opts.selfHeal ?? true,
      emit: (event) => this.#emit(event),
      onLoaded: (files) => this.#watcher?.setFiles(files),
      retryAt: () => this.#scheduler.nextRunAt,
    });
    this.#scheduler = new Scheduler({
      intervalMs: opts.intervalMs ?? WATCH_DEFAULTS.intervalMs,
      jitter: opts.jitter ?? WATCH_DEFAULTS.jitter,
      backoff: new Backoff(opts.backoff ?? DEFAULT_BACKOFF),
      run: runner.run,
      check: runner.check,
      onRetryScheduled: (retry) => this.#emit({ type: "retry_scheduled", ...retry }),
    });
  }

  /**
   * Starts watching the files, then runs the startup reconcile (resolves once it has begun).
   * @param info.healthUrl the health endpoint's URL, for the start line.
   */
  async start(info: { healthUrl?: string } = {}): Promise<void> {
    if (this.#watcher !== undefined || this.#stopping !== undefined) return;
    this.#watcher = new FileWatcher({
      roots: this.#opts.roots,
      debounceMs: this.#opts.debounceMs ?? WATCH_DEFAULTS.debounceMs,
      poll: this.#opts.poll ?? false,
      onChange: (files) => this.#scheduler.trigger(fileTrigger(files)),
      onError: (error) => this.#emit({ type: "warning", message: `file watcher: ${error.message}` }),
    });
    await this.#watcher.ready();
    if (this.#stopping !== undefined) return;
    const { roots } = this.#opts;
    const { healthUrl } = info;
    this.#emit({
      type: "started",
      roots,
      intervalMs: this.#opts.intervalMs ?? WATCH_DEFAULTS.intervalMs,
      debounceMs: this.#opts.debounceMs ?? WATCH_DEFAULTS.debounceMs,
      selfHeal: this.#opts.selfHeal ?? true,
      ...(healthUrl === undefined ? {} : { healthUrl }),
    });
    this.#scheduler.start();
  }

  /** The health status now (with the next scheduled run). */
  status(): WatchStatus {
    const next = this.#scheduler.nextRunAt;
    return { ...this.#status, nextRunAt: next === undefined ? null : new Date(next).toISOString() };
  }

  /**
   * Stops: file changes are no longer watched, the reconcile in flight is aborted (its calls in flight
   * finish, its lock is released) and awaited. Safe to call more than once.
   * @param signal what asked for it, for the log (`SIGTERM`, `SIGINT`).
   */
  stop(signal = "stop"): Promise<void> {
    this.#stopping ??= (async () => {
      this.#emit({ type: "stopping", signal });
      await this.#watcher?.close();
      await this.#scheduler.stop(new StopRequested(signal));
      this.#emit({ type: "stopped" });
      this.#resolveStopped();
    })();
    return this.#stopping;
  }

  #emit(event: WatchEvent): void {
    this.#status = foldStatus(this.#status, event);
    try {
      this.#opts.emit(event);
    } catch {
      // A failing log must not stop reconciling.
    }
  }
}

/** The abort reason given to a reconcile when the watch stops. */
export class StopRequested extends Error {
  constructor(readonly signal: string) {
    super(`stopped by ${signal}`);
    this.name = "StopRequested";
  }
}
