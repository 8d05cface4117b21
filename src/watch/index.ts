/**
 * `tgw watch`: continuous reconciliation (issue 6, docs/watch.md). Public surface of the loop; the
 * CLI command (src/cli/commands/watch.ts) wires it to the config layer, the engine and the API.
 */
export { Backoff, type BackoffOptions, backoffDelay, DEFAULT_BACKOFF, retryAfterOf } from "./backoff.js";
export { type EngineDepsOptions, engineDeps } from "./engine-deps.js";
export type {
  ChangeAction,
  ChangeSummary,
  ConfigProblem,
  EventSink,
  ReconcileMode,
  WatchEvent,
} from "./events.js";
export { FileWatcher, type FileWatcherOptions } from "./file-watcher.js";
export { type HealthServer, startHealthServer } from "./health.js";
export { createLog, type LogOptions } from "./log.js";
export { StopRequested, WATCH_DEFAULTS, WatchLoop, type WatchLoopOptions } from "./loop.js";
export { describeError, type ReconcileRequest, type WatchDeps } from "./run.js";
export { type RunOutcome, Scheduler, type SchedulerOptions, type SchedulerState } from "./scheduler.js";
export { type HealthStatus, isHealthy, type WatchStatus } from "./status.js";
export { describeTrigger, type Trigger } from "./trigger.js";
