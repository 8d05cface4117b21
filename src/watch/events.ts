/**
 * What `tgw watch` reports: one event per thing that happened, as plain data. The log
 * (src/watch/log.ts) renders them for people or as JSON; the health status (src/watch/status.ts) is
 * folded from them. Events carry addresses, counts, durations and error messages, never field values,
 * so no secret can reach the log through them.
 */
import type { ConfigProblem } from "../config/index.js";
import type { Action } from "../engine/index.js";
import type { Trigger } from "./trigger.js";

/** One configuration problem, positioned as `tgw validate` shows it (the config layer's type). */
export type { ConfigProblem };

/** Actions that change live state (docs/design.md section 2; `no-op` is never reported). */
export type ChangeAction = Exclude<Action, "no-op">;

/** One change of a reconcile: applied (apply mode) or pending (drift report under `--no-self-heal`). */
export interface ChangeSummary {
  address: string;
  action: ChangeAction;
  /** Live had changed behind tgw's back (the configuration had not): the change corrects drift. */
  drift?: boolean;
}

/** Whether a reconcile applies its plan or only reports it. */
export type ReconcileMode = "apply" | "plan";

/** Everything `tgw watch` reports. `run` numbers reconciles from 1. */
export type WatchEvent =
  | {
      type: "started";
      /** The `-f` paths. */
      roots: string[];
      intervalMs: number;
      debounceMs: number;
      selfHeal: boolean;
      /** `http://host:port/healthz`, when `--health-port` is set. */
      healthUrl?: string;
    }
  | { type: "reconcile_started"; run: number; trigger: Trigger; mode: ReconcileMode }
  | {
      type: "reconcile_succeeded";
      run: number;
      trigger: Trigger;
      mode: ReconcileMode;
      durationMs: number;
      /** Apply mode: the changes applied. Plan mode: the drift found and left alone. */
      changes: ChangeSummary[];
      /** What the reconcile read (JSON log only), when the dependencies report it. */
      reads?: ReadStats;
      /** API keys whose token is lost (reported as warnings too): health is `degraded`. */
      lostTokens?: string[];
    }
  | {
      type: "config_invalid";
      /** Undefined when the check ran while backing off (no reconcile was started). */
      run?: number;
      trigger: Trigger;
      durationMs: number;
      problems: ConfigProblem[];
      /** True when the problems are exactly those reported last time. */
      repeated: boolean;
    }
  | {
      /** A file change validated while backing off: it will be applied by the next attempt. */
      type: "config_queued";
      trigger: Trigger;
      /** Epoch ms of the next attempt, if known. */
      retryAt?: number;
    }
  | {
      type: "reconcile_failed";
      run: number;
      trigger: Trigger;
      mode: ReconcileMode;
      durationMs: number;
      /** `TgwError` code (`api`, `network`, `state_locked`...), or `internal` for a bug. */
      code: string;
      /** One line: for API errors the method, path, status, error code, message and operation id. */
      message: string;
      /** Stack trace of an internal error (shown with `--debug` only). */
      stack?: string;
      /** Changes applied before the failure. */
      applied: ChangeSummary[];
    }
  | {
      /** Stopped by SIGINT / SIGTERM / SIGHUP while running: calls in flight finished, nothing new was started. */
      type: "reconcile_interrupted";
      run: number;
      trigger: Trigger;
      mode: ReconcileMode;
      durationMs: number;
      applied: ChangeSummary[];
    }
  | {
      type: "retry_scheduled";
      inMs: number;
      failures: number;
      trigger: Trigger;
      /** The API's `Retry-After`, when the failure carried one (the wait is never shorter). */
      retryAfterMs?: number;
      /** The failed reconcile applied changes: progress, not counted in `failures`. */
      progress?: boolean;
    }
  | { type: "change_applied"; run: number; change: ChangeSummary; durationMs?: number }
  | { type: "waiting_for_lock"; run: number; location: string }
  /** Something worth knowing that did not stop the loop (file watcher trouble, a stale lock taken over). */
  | { type: "warning"; message: string }
  | { type: "stopping"; signal: string }
  | { type: "stopped" }
  /** This replica became the leader (it reconciles) or stands by (src/watch/leader.ts). */
  | {
      type: "leadership";
      role: "leader" | "standby";
      /** Who leads, when standing by: `tgw watch (pid 12 on host-b, since 10:02:11)`. */
      leader?: string;
      /** Why a leader stepped down (its lock was lost). */
      reason?: string;
    }
  /** `tgw watch --git`: a revision was fetched, applied, or found invalid (not applied). */
  | {
      type: "revision";
      status: "fetched" | "applied" | "invalid";
      /** Full commit id. */
      revision: string;
      /** The revision that stays applied (for `invalid`). */
      appliedRevision?: string;
      /** The first problem (for `invalid`). */
      problem?: string;
    };

/** A consumer of events. It must not throw (the emitter ignores what it throws). */
export type EventSink = (event: WatchEvent) => void;

/** Counts changes by action, in the fixed order create, update, replace, put, delete. */
export function countChanges(changes: ChangeSummary[]): Partial<Record<ChangeAction, number>> {
  const counts: Partial<Record<ChangeAction, number>> = {};
  for (const action of ["create", "update", "replace", "put", "delete"] as const) {
    const n = changes.filter((c) => c.action === action).length;
    if (n > 0) counts[action] = n;
  }
  return counts;
}

/**
 * What one reconcile read (docs/watch.md > "What a reconcile re-reads"): configuration files parsed
 * and taken unchanged from the cache, and whether live state was listed in full or only the objects
 * an edit touched were read again.
 */
export interface ReadStats {
  filesParsed: number;
  filesReused: number;
  live: "full" | "partial";
  /** Partial reads: objects and module paths read again. */
  objectsReread: number;
}
