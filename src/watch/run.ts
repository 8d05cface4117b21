/**
 * What one reconcile of `tgw watch` does, given its trigger: load the desired state, then reconcile it
 * (apply, or only plan for a drift check under `--no-self-heal`), reporting everything as events.
 *
 * - Loading is local (files only). An invalid configuration is reported with every problem's position
 *   and the run ends there: nothing reaches the API, and the scheduler waits for the next edit.
 * - Mode: `apply`, except with self-heal off when the trigger is only the interval (drift check): then
 *   `plan`, and the drift found is reported. A run caused by a file change (or by starting up) applies.
 * - A failure of any other kind (API, network, lock, bug) is reported and returned to the scheduler,
 *   which backs off; it never escapes as an exception. Reads the failed reconcile left in flight are
 *   aborted, so an outage costs one burst of calls per attempt, not a trail of retries.
 */

import { TgwError } from "../errors.js";
import type { DesiredState } from "../model/desired.js";
import type { ChangeSummary, ConfigProblem, EventSink, ReadStats, ReconcileMode } from "./events.js";
import type { RunOutcome } from "./scheduler.js";
import { isConfigChange, onlyFiles, type Trigger } from "./trigger.js";

/** Options of one reconcile, as the watch loop asks for it. */
export interface ReconcileRequest {
  /** `apply` makes live equal desired; `plan` only computes the changes. */
  mode: ReconcileMode;
  /** Aborted on SIGINT / SIGTERM / SIGHUP: let calls in flight finish, start nothing new, release the lock. */
  signal: AbortSignal;
  /**
   * The reconcile may re-read only the objects whose desired state changed (src/watch/live-cache.ts):
   * true for file changes alone with self-heal on. Startup, interval and retries read everything, and
   * so do file changes under `--no-self-heal`, whose apply is also the moment drift is corrected.
   */
  partialRead: boolean;
  /** Called as each change is applied (apply mode). */
  onApplied(change: ChangeSummary, durationMs?: number): void;
}

/** What the watch loop needs from the rest of tgw (injected: the CLI wires the real ones). */
export interface WatchDeps {
  /**
   * Reads and validates the configuration (no API calls).
   * @throws an error for which `configProblems` returns the problems when the configuration is invalid.
   */
  load(): Promise<DesiredState>;
  /**
   * Refreshes live state, plans, checks safety and (mode `apply`) applies, taking the state lock only
   * while applying. Returns the changes applied (apply) or found (plan), `no-op`s left out.
   * @throws on API, network, lock or safety failures; `signal.reason` (or an error caused by it) when aborted.
   */
  reconcile(desired: DesiredState, request: ReconcileRequest): Promise<ChangeSummary[]>;
  /** The positioned problems if `err` is an invalid-configuration error, else undefined. */
  configProblems(err: unknown): ConfigProblem[] | undefined;
  /** What the last load and reconcile read, for the log (optional). */
  reads?(): ReadStats | undefined;
  /** The API keys whose token the last reconcile reported lost, sorted (optional). */
  lostTokens?(): string[];
}

/** Settings of the runs. */
export interface RunOptions {
  deps: WatchDeps;
  selfHeal: boolean;
  emit: EventSink;
  /** Told the files each successful load read, so the watcher follows them. */
  onLoaded?(files: string[]): void;
  /** Epoch ms of the next attempt while backing off (for `config_queued`). */
  retryAt?(): number | undefined;
}

/** The `run` and `check` functions of the scheduler (src/watch/scheduler.ts). */
export interface Runner {
  run(trigger: Trigger, signal: AbortSignal): Promise<RunOutcome>;
  check(trigger: Trigger): Promise<void>;
}

/** Builds the runner. Runs are numbered from 1 in the events. */
export function createRunner(opts: RunOptions): Runner {
  const load = configLoader(opts);
  let runs = 0;
  return {
    async run(trigger, signal) {
      return reconcileRun(opts, load, { run: ++runs, trigger, started: performance.now() }, signal);
    },

    async check(trigger) {
      try {
        const desired = await load(trigger, undefined, performance.now());
        if (desired === undefined) return;
        const retryAt = opts.retryAt?.();
        opts.emit({ type: "config_queued", trigger, ...(retryAt === undefined ? {} : { retryAt }) });
      } catch {
        // Not a configuration problem (unreadable file...): the next attempt reports it.
      }
    },
  };
}

/**
 * Loads the desired state; on an invalid configuration emits `config_invalid` (with `run`, when
 * given) and returns undefined. Tells `onLoaded` the files to follow either way.
 * @throws what `deps.load` throws when it is not an invalid configuration.
 */
type Load = (trigger: Trigger, run: number | undefined, started: number) => Promise<DesiredState | undefined>;

/** The `Load` of the runner, which remembers the last problems (to mark repeats) and files read. */
function configLoader(opts: RunOptions): Load {
  const { deps, emit } = opts;
  let lastProblems: string | undefined;
  /** The files the last successful load read. */
  let lastFiles: string[] = [];
  return async (trigger, run, started) => {
    try {
      const desired = await deps.load();
      lastProblems = undefined;
      lastFiles = desired.files;
      opts.onLoaded?.(desired.files);
      return desired;
    } catch (err) {
      const problems = deps.configProblems(err);
      if (problems === undefined) throw err;
      const key = JSON.stringify(problems);
      const repeated = key === lastProblems;
      lastProblems = key;
      // Keep following what was read before, and the files the problems are in (one just added).
      opts.onLoaded?.([...lastFiles, ...problems.map((p) => p.file)]);
      const durationMs = elapsed(started);
      emit({
        type: "config_invalid",
        ...(run === undefined ? {} : { run }),
        trigger,
        durationMs,
        problems,
        repeated,
      });
      return undefined;
    }
  };
}

/** One run's number, trigger and start (a `performance.now()` value). */
interface RunStart {
  run: number;
  trigger: Trigger;
  started: number;
}

/**
 * One run: load, then reconcile in the trigger's mode, emitting `reconcile_started`,
 * `change_applied` and how it ended. Never throws: a failure is reported and returned.
 */
async function reconcileRun(
  opts: RunOptions,
  load: Load,
  start: RunStart,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const { deps, emit } = opts;
  const { run, trigger, started } = start;
  const mode: ReconcileMode = opts.selfHeal || isConfigChange(trigger) ? "apply" : "plan";
  const applied: ChangeSummary[] = [];
  // The reconcile's own signal: aborted on stop, and once the reconcile has ended, so reads it
  // left running after its first failure (other lists of the refresh) stop retrying at once.
  const own = new AbortController();
  const onStop = () => own.abort(signal.reason);
  signal.addEventListener("abort", onStop, { once: true });
  try {
    const desired = await load(trigger, run, started);
    if (desired === undefined) return { kind: "invalid" };
    signal.throwIfAborted();
    emit({ type: "reconcile_started", run, trigger, mode });
    const changes = await deps.reconcile(desired, {
      mode,
      partialRead: opts.selfHeal && onlyFiles(trigger),
      signal: own.signal,
      onApplied(change, durationMs) {
        applied.push(change);
        emit({
          type: "change_applied",
          run,
          change,
          ...(durationMs === undefined ? {} : { durationMs }),
        });
      },
    });
    const reads = deps.reads?.();
    const lostTokens = deps.lostTokens?.() ?? [];
    emit({
      type: "reconcile_succeeded",
      run,
      trigger,
      mode,
      durationMs: elapsed(started),
      changes,
      ...(reads === undefined ? {} : { reads }),
      ...(lostTokens.length > 0 ? { lostTokens } : {}),
    });
    return { kind: "ok" };
  } catch (error) {
    return reportEnded(emit, start, mode, signal.aborted, error, applied);
  } finally {
    signal.removeEventListener("abort", onStop);
    own.abort(new Error("the reconcile has ended"));
  }
}

/**
 * Reports a run that threw: `reconcile_interrupted` when stopped (outcome ok), else `reconcile_failed`
 * (outcome `progress` when changes were applied before the failure, else `failed`).
 */
function reportEnded(
  emit: EventSink,
  { run, trigger, started }: RunStart,
  mode: ReconcileMode,
  stopped: boolean,
  error: unknown,
  applied: ChangeSummary[],
): RunOutcome {
  const durationMs = elapsed(started);
  if (stopped) {
    emit({ type: "reconcile_interrupted", run, trigger, mode, durationMs, applied });
    return { kind: "ok" };
  }
  const { code, message, stack } = describeError(error);
  emit({
    type: "reconcile_failed",
    run,
    trigger,
    mode,
    durationMs,
    code,
    message,
    ...(stack === undefined ? {} : { stack }),
    applied,
  });
  // Changes applied before the failure: progress, which the backoff does not count as a failure.
  return applied.length > 0 ? { kind: "progress", error } : { kind: "failed", error };
}

/**
 * Code and one-line message of a failure: a `TgwError`'s code and `format()` (API errors name the
 * method, path, status, error code and operation id); anything else is `internal` (a bug), with its stack.
 */
export function describeError(error: unknown): { code: string; message: string; stack?: string } {
  if (error instanceof TgwError) {
    const formatted = (error as { format?: () => string }).format?.() ?? error.message;
    return { code: error.code, message: formatted };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "internal",
    message: `${message} (a bug in tgw, please report it)`,
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  };
}

/** Whole milliseconds since `started` (a `performance.now()` value). */
function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
