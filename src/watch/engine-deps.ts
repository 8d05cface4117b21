/**
 * The real dependencies of the watch loop: the config layer loads (`loadDesiredState`), the engine
 * reconciles (`reconcile` with `lockScope: "apply"`: the state lock is taken only when there is
 * something to apply), and the engine's progress events become watch events.
 *
 * The state store is opened per stack: the stack is known only once a load succeeds, and an edit may
 * rename it (the store then refuses a state file of another stack, which is reported as a failure).
 */
import type { Api } from "../client/index.js";
import { ParseCache } from "../config/cache.js";
import { ConfigError, loadDesiredState } from "../config/index.js";
import {
  type Change,
  describeLostToken,
  type EngineEvent,
  isChange,
  NotConfirmedError,
  type ReconcileOptions,
  type ReconcileResult,
  reconcile,
  type SafetyOptions,
} from "../engine/index.js";
import type { DesiredState } from "../model/desired.js";
import { FileStateStore, type StateApi, type StateSnapshot, type StateStore } from "../state/index.js";
import type { ChangeAction, ChangeSummary, EventSink } from "./events.js";
import { LiveCache, type LiveReader } from "./live-cache.js";
import type { ReconcileRequest, WatchDeps } from "./run.js";

/** Settings of the engine-backed dependencies. */
export interface EngineDepsOptions {
  /** The `-f` paths (none: the working directory). */
  paths: string[];
  /** Absolute path of the state file. */
  statePath: string;
  api: Api;
  /** The API's identity, recorded in the state and checked against it (docs/state.md). */
  apiIdentity?: StateApi;
  safety: SafetyOptions;
  /** How long an apply waits for the state lock, in ms. */
  lockTimeoutMs: number;
  /** API calls in flight at once during apply (default 4). */
  parallelism?: number;
  /** Environment for `${env:NAME}` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Where warnings and lock waits go (the watch log). */
  emit: EventSink;
  /** Opens the store of a stack (default: a FileStateStore at `statePath`); called once per stack. */
  openStore?: (stack: string) => StateStore;
  /** Revision (Git commit) of the configuration being reconciled, recorded with the state. */
  revision?: () => string | undefined;
  /** The token command new API keys' tokens are handed to (`TGW_TOKEN_COMMAND`, docs/ci.md > Tokens). */
  tokenCommand?: string;
  /** Told each plan and the state each successful reconcile leaves (the status page, ./status-page.ts). */
  observer?: ReconcileObserver;
}

/** What a reconcile tells beyond the watch events: for the status page (./status-page.ts). */
export interface ReconcileObserver {
  /** The changes of a plan, no-ops left out (a reconcile may plan twice: partial read, then full). */
  planned(changes: ChangeSummary[]): void;
  /** The state after a successful reconcile (it never holds a secret: ids and digests). */
  state(snapshot: StateSnapshot): void;
}

/** Builds the `WatchDeps` that load with the config layer and reconcile with the engine. */
export function engineDeps(opts: EngineDepsOptions): WatchDeps {
  const storeFor = storeOpener(opts);
  let runs = 0;
  // The version of each stack's state after its last reconcile: a state deleted or replaced behind
  // the watcher is reported once the next reconcile has rebuilt it.
  const versions = new Map<string, StateVersion>();
  // Kept between reconciles: unchanged files are not parsed again, and a file-change reconcile
  // re-reads only the objects the edit touched (docs/watch.md > "What a reconcile re-reads").
  const parsed = new ParseCache();
  const kept = new LiveCache(opts.api);
  let files = { parsed: 0, reused: 0 };
  /** The keys whose token the last reconcile reported lost. */
  const lost = new Set<string>();

  return {
    async load() {
      try {
        return await loadDesiredState(opts.paths, {
          ...(opts.env ? { env: opts.env } : {}),
          parseCache: parsed,
        });
      } finally {
        files = parsed.endLoad();
      }
    },

    lostTokens() {
      return [...lost].sort();
    },

    reads() {
      const last = kept.lastRead;
      if (!last) return undefined;
      return {
        filesParsed: files.parsed,
        filesReused: files.reused,
        live: last.kind,
        objectsReread: last.reread.size,
      };
    },

    configProblems: (err) => (err instanceof ConfigError ? err.problems : undefined),

    async reconcile(desired, request) {
      const run = ++runs;
      lost.clear();
      const onEvent = progressHandler(opts, run, request, lost);
      const revision = opts.revision?.();
      const known = versions.get(desired.stack);
      const restart = known && { lineage: known.lineage, serial: known.serial };
      const attempt = (readLive: LiveReader, partial: boolean) =>
        reconcile({
          desired,
          api: opts.api,
          store: storeFor(desired.stack),
          signal: request.signal,
          onEvent,
          options: watchReconcileOptions(opts, request.mode, revision, restart, readLive, {
            // A plan from a partial read is applied only if it calls no object it did not read again.
            ...(partial ? { approve: async (plan) => kept.checkPlan(plan) } : {}),
          }),
        });
      const result = await reconcileThroughCache(kept, desired, request, attempt);
      const before = versions.get(desired.stack);
      versions.set(desired.stack, { lineage: result.state.lineage, serial: result.state.serial, run });
      const rebuilt = rebuiltMessage(before, result, storeFor(desired.stack).location);
      if (rebuilt) opts.emit({ type: "warning", message: rebuilt });
      opts.observer?.state(result.state);
      return changeSummaries(request.mode, result);
    },
  };
}

/** A stack's state as its last reconcile left it, and that reconcile's number. */
interface StateVersion {
  lineage: string;
  serial: number;
  run: number;
}

/** Returns the store of a stack, opening it (`openStore`, or a FileStateStore) on first use. */
function storeOpener(opts: EngineDepsOptions): (stack: string) => StateStore {
  const stores = new Map<string, StateStore>();
  return (stack) => {
    let store = stores.get(stack);
    if (!store) {
      store =
        opts.openStore?.(stack) ??
        new FileStateStore(opts.statePath, {
          stack,
          warn: (message) => opts.emit({ type: "warning", message: `state: ${message}` }),
        });
      stores.set(stack, store);
    }
    return store;
  };
}

/**
 * The engine's events of reconcile number `run` as watch events: warnings, lost tokens (also added
 * to `lost`), lock waits, and `request.onApplied` once every call of a change is done; plans go to
 * `opts.observer`.
 */
function progressHandler(
  { emit, observer }: Pick<EngineDepsOptions, "emit" | "observer">,
  run: number,
  request: ReconcileRequest,
  lost: Set<string>,
): (e: EngineEvent) => void {
  // A replace is two calls: its change is applied when both are done.
  const callsLeft = new Map<string, number>();
  const drift = new Set<string>();
  return (e) => {
    if (e.type === "planned") {
      const changes = e.plan.changes.filter((c) => isChange(c.action));
      for (const c of changes) {
        callsLeft.set(c.address, c.action === "replace" ? 2 : 1);
        if (c.drift) drift.add(c.address);
      }
      observer?.planned(changes.map(toSummary));
    } else if (e.type === "warning") {
      emit({ type: "warning", message: e.message });
    } else if (e.type === "token_lost") {
      lost.add(e.address);
      emit({ type: "warning", message: describeLostToken(e).join(" ") });
    } else if (e.type === "lock_waiting") {
      emit({ type: "waiting_for_lock", run, location: e.location });
    } else if (e.type === "step_done" && e.action !== "no-op") {
      const left = (callsLeft.get(e.address) ?? 1) - 1;
      callsLeft.set(e.address, left);
      if (left === 0) request.onApplied(summary(e.address, e.action, drift), e.durationMs);
    }
  };
}

/** The engine's options for a watch reconcile: lock only to apply, plus the watcher's settings. */
function watchReconcileOptions(
  opts: EngineDepsOptions,
  mode: ReconcileRequest["mode"],
  revision: string | undefined,
  restartVersion: { lineage: string; serial: number } | undefined,
  readLive: LiveReader,
  approval: Pick<ReconcileOptions, "approve">,
): ReconcileOptions {
  return {
    mode,
    lockScope: "apply",
    lockTimeoutMs: opts.lockTimeoutMs,
    lockHolder: "tgw watch",
    ...(opts.apiIdentity ? { apiIdentity: opts.apiIdentity } : {}),
    ...(revision === undefined ? {} : { revision }),
    ...(restartVersion === undefined ? {} : { restartVersion }),
    ...(opts.parallelism === undefined ? {} : { parallelism: opts.parallelism }),
    ...(opts.tokenCommand ? { tokenCommand: opts.tokenCommand } : {}),
    ...opts.safety,
    readLive,
    ...approval,
  };
}

/**
 * Reconciles reading only what the edit touched when the request allows it, and again reading
 * everything if that plan calls an object not read again (NotConfirmedError); tells `kept` the outcome.
 * @throws what `attempt` throws (the cache is then invalidated).
 */
async function reconcileThroughCache(
  kept: LiveCache,
  desired: DesiredState,
  request: ReconcileRequest,
  attempt: (readLive: LiveReader, partial: boolean) => Promise<ReconcileResult>,
): Promise<ReconcileResult> {
  const partial = request.mode === "apply" && request.partialRead && kept.canReadPartially(desired);
  let result: ReconcileResult;
  try {
    result = await attempt(partial ? kept.partial(desired) : kept.full(), partial).catch((err) => {
      if (!(partial && err instanceof NotConfirmedError)) throw err;
      return attempt(kept.full(), false);
    });
  } catch (err) {
    kept.invalidate();
    throw err;
  }
  kept.succeeded(desired, result.plan, result.state);
  return result;
}

/**
 * The warning for a state deleted or replaced since the stack's last reconcile (`before`), now
 * rebuilt by `result`; undefined when the state only moved forward (or on the first reconcile).
 */
function rebuiltMessage(
  before: StateVersion | undefined,
  result: ReconcileResult,
  location: string,
): string | undefined {
  const read = result.plan.basis;
  const replaced = read.serial > 0 && read.lineage !== before?.lineage;
  if (!before || (read.serial >= before.serial && !replaced)) return undefined;
  const recovered = result.plan.changes.filter((c) => c.adopted).length;
  const found = read.serial === 0 ? "no state" : `serial ${read.serial} of lineage ${read.lineage}`;
  return `state ${location} was deleted or replaced after reconcile #${before.run} (it was serial ${before.serial} of lineage ${before.lineage}; found ${found}): ${recovered} object${recovered === 1 ? " was" : "s were"} recovered from ${recovered === 1 ? "its ownership marker" : "their ownership markers"}${result.applied ? " and recorded again" : ""}`;
}

/** The changes a reconcile applied (mode `apply`) or found (mode `plan`), no-ops left out. */
function changeSummaries(mode: ReconcileRequest["mode"], result: ReconcileResult): ChangeSummary[] {
  if (mode === "plan") return result.plan.changes.filter((c) => isChange(c.action)).map(toSummary);
  return (result.result?.outcomes ?? []).filter((o) => o.status === "done").map((o) => toSummary(o.change));
}

function toSummary(c: Change): ChangeSummary {
  return { address: c.address, action: c.action as ChangeAction, ...(c.drift ? { drift: true } : {}) };
}

function summary(address: string, action: string, drift: Set<string>): ChangeSummary {
  return { address, action: action as ChangeAction, ...(drift.has(address) ? { drift: true } : {}) };
}
