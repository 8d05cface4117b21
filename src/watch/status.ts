/**
 * The health of `tgw watch`, as `/healthz` serves it: folded from the events (src/watch/events.ts).
 *
 * `status`:
 * - `starting`: no reconcile has finished yet;
 * - `ok`: the last reconcile succeeded (under `--no-self-heal`, drift it reported is in `drift`);
 * - `invalid_config`: the last load found the configuration invalid: nothing is being applied;
 * - `degraded`: the last reconcile failed but applied changes (progressing): retrying soon; or it
 *   succeeded while API keys' tokens are lost (`lostTokens`);
 * - `failing`: the last reconcile failed (API, network, lock...) and applied nothing: retrying with backoff;
 * - `stopping`: shutting down after SIGINT / SIGTERM / SIGHUP;
 * - `standby`: a replica that is not the leader (src/watch/leader.ts): ready to take over.
 * `ok` and `standby` are healthy (HTTP 200); every other status answers 503.
 */
import type { ChangeSummary, WatchEvent } from "./events.js";

/** Health status values (see the module doc). */
export type HealthStatus =
  | "starting"
  | "ok"
  | "invalid_config"
  | "degraded"
  | "failing"
  | "stopping"
  | "standby";

/** The body of `/healthz`. Times are RFC 3339. */
export interface WatchStatus {
  status: HealthStatus;
  startedAt: string;
  /** Reconciles started so far. */
  runs: number;
  /** End of the last reconcile, successful or not. */
  lastRunAt: string | null;
  /** End of the last successful reconcile. */
  lastSuccessAt: string | null;
  /** The last failure (config or reconcile); kept after a later success, for context. */
  lastError: { at: string; kind: "config" | "reconcile"; message: string } | null;
  /** Failed reconciles in a row (0 after a success, or a failure that still applied changes). */
  consecutiveFailures: number;
  /** Changes the last successful reconcile applied (`--no-self-heal` interval runs: none). */
  lastApplied: ChangeSummary[];
  /** Drift the last plan-only reconcile found and left alone (`--no-self-heal`). */
  drift: ChangeSummary[];
  /** When the next timed reconcile (interval or retry) is due, if one is scheduled. */
  nextRunAt: string | null;
  /** API keys whose token the last successful reconcile found lost (docs/plan.md > Lost tokens). */
  lostTokens: string[];
}

/** The status before anything ran. */
export function initialStatus(now: Date = new Date()): WatchStatus {
  return {
    status: "starting",
    startedAt: now.toISOString(),
    runs: 0,
    lastRunAt: null,
    lastSuccessAt: null,
    lastError: null,
    consecutiveFailures: 0,
    lastApplied: [],
    drift: [],
    nextRunAt: null,
    lostTokens: [],
  };
}

/** The status after `event` (pure: returns a new object; `nextRunAt` is filled in by the caller). */
export function foldStatus(s: WatchStatus, event: WatchEvent, now: Date = new Date()): WatchStatus {
  const at = now.toISOString();
  switch (event.type) {
    case "reconcile_started":
      return { ...s, runs: s.runs + 1 };
    case "reconcile_succeeded":
      return {
        ...s,
        status: event.lostTokens?.length ? "degraded" : "ok",
        lostTokens: event.lostTokens ?? [],
        lastRunAt: at,
        lastSuccessAt: at,
        consecutiveFailures: 0,
        lastApplied: event.mode === "apply" ? event.changes : [],
        drift: event.mode === "plan" ? event.changes : [],
      };
    case "config_invalid": {
      const problem = event.problems[0];
      const first = problem ? `${problem.file}:${problem.line}:${problem.col}: ${problem.message}` : "";
      const more = event.problems.length > 1 ? ` (and ${event.problems.length - 1} more)` : "";
      return {
        ...s,
        status: "invalid_config",
        lastRunAt: event.run === undefined ? s.lastRunAt : at,
        lastError: { at, kind: "config", message: `invalid configuration: ${first}${more}` },
      };
    }
    case "config_queued":
      // Only sent while backing off after a failure: the configuration is fine again, the API is not.
      return { ...s, status: s.status === "degraded" ? "degraded" : "failing" };
    case "reconcile_failed": {
      const progress = event.applied.length > 0;
      return {
        ...s,
        status: progress ? "degraded" : "failing",
        lastRunAt: at,
        lastError: { at, kind: "reconcile", message: event.message },
        consecutiveFailures: progress ? 0 : s.consecutiveFailures + 1,
      };
    }
    case "stopping":
      return { ...s, status: "stopping" };
    default:
      return s;
  }
}

/** True when `/healthz` answers 200. */
export function isHealthy(s: WatchStatus): boolean {
  return s.status === "ok" || s.status === "standby";
}
