/**
 * One reconcile: refresh -> plan -> safety checks -> (approval) -> apply. The entry point of
 * `tgw plan`, `tgw apply`, `tgw destroy` and the `watch` loop.
 *
 * Locking: with `lockScope: "run"` (the CLI's apply and destroy) the state lock is held from before
 * the state is read until the apply ends, so what was planned and approved is what is applied. With
 * `lockScope: "apply"` (watch) the lock is taken only when there is something to apply; if the state
 * moved meanwhile, refresh and plan are done again under the lock. Mode `plan` never locks.
 *
 * `signal`: once aborted, nothing new starts; calls in flight finish and are recorded; the lock is
 * released.
 */

import type { Api } from "../client/index.js";
import { UsageError } from "../errors.js";
import type { DesiredState } from "../model/desired.js";
import { getKind } from "../model/index.js";
import { didYouMean } from "../model/words.js";
import { LockTimeoutError } from "../state/errors.js";
import {
  canFence,
  type StateApi,
  type StateListing,
  type StateSnapshot,
  type StateStore,
  type StateVersion,
  type Unlock,
} from "../state/store.js";
import { hasChanges, isChange, type Plan } from "./action.js";
import { type ApplyResult, applyPlan, type CreateRetry } from "./apply.js";
import { NotConfirmedError } from "./errors.js";
import { type EventHandler, emitter } from "./events.js";
import { fencedApi } from "./fencing.js";
import { StateJournal } from "./journal.js";
import { listingAfter, sameUnrecorded } from "./listing.js";
import type { LiveState } from "./live.js";
import { claimsAfterTakeover } from "./ownership.js";
import type { PageCursors } from "./pages.js";
import { checkModuleParents } from "./parents.js";
import { makePlan } from "./plan.js";
import { buildRecord, keepDelivery, sameRecord } from "./records.js";
import { type RefreshScope, refresh, refreshScope } from "./refresh.js";
import { resolveRefs } from "./refs.js";
import { checkPlanSafety, foreignLineageMessage, type SafetyOptions } from "./safety.js";
import { checkSavedPlan, type SavedPlanCheck } from "./saved-plan.js";
import { checkStateApi, sameApi } from "./state-api.js";
import { selectTargets } from "./targets.js";
import { recoverTokenFiles } from "./token-writer.js";
import { settleTokens } from "./tokens.js";

/**
 * How long a state write waits for more results during an apply with ownership markers (ms): a crash
 * loses at most the records of this long and of the calls in flight, found again through their markers.
 * A large apply thus writes its state a few times a second, not once per result (bench/README.md).
 */
const JOURNAL_GATHER_MS = 20;

/** Options of a reconcile. */
export interface ReconcileOptions extends SafetyOptions {
  /**
   * The lineage and serial a missing state (serial 0) is planned and written with: a long-running
   * driver (`tgw watch`) whose state was deleted behind it knows the lineage and last serial its
   * ownership markers carry, so their claims are known (`StateSnapshot.claims`) and its objects are
   * recovered as its own, not another workspace's.
   */
  restartVersion?: StateVersion;
  /**
   * Hand each new API key's token to this shell command (stdin) instead of writing its token file:
   * `TGW_TOKEN_COMMAND` (docs/ci.md > Tokens; ./token-command.ts).
   */
  tokenCommand?: string;
  /** `plan` stops after the safety checks; `apply` (default) applies. */
  mode?: "plan" | "apply";
  /** Plan the deletion of everything the stack owns (`tgw destroy`). */
  destroy?: boolean;
  /** Calls in flight at once during apply; default 4. */
  parallelism?: number;
  /** How long to wait for the state lock, in ms; default 0 (fail at once). */
  lockTimeoutMs?: number;
  /** Who takes the lock, shown to whoever waits (`tgw apply, pid 123 on host`). */
  lockHolder?: string;
  /** `run` (default): lock before reading the state; `apply`: only while applying (watch). */
  lockScope?: "run" | "apply";
  /**
   * Asked before applying a plan with changes (the CLI's confirmation prompt). Resolving false
   * cancels with `NotConfirmedError`. Not called when only the state needs updating.
   */
  approve?: (plan: Plan) => Promise<boolean>;
  /** Apply only if the plan equals this saved one (`tgw apply PLANFILE`). */
  saved?: SavedPlanCheck;
  /** Refresh concurrency (lists and module reads in flight); default 16. */
  refreshConcurrency?: number;
  /** Addresses to replace even if unchanged (`--replace`); checked by `checkReplaceAddresses`. */
  replace?: readonly string[];
  /** Plan only these addresses and what they need (`--target`, ./targets.ts). */
  target?: readonly string[];
  /** Leave these addresses and what depends on them out of the plan (`--exclude`). */
  exclude?: readonly string[];
  /**
   * The API of this run: a state recording another one is refused (./state-api.ts), and every write
   * records this one. Omitted: no check, nothing recorded.
   */
  apiIdentity?: StateApi;
  /** Use a state that records another API (the next write records `apiIdentity`). */
  allowApiChange?: boolean;
  /** Sending a create again once it is proven not to have happened; default `DEFAULT_CREATE_RETRY`. */
  createRetry?: CreateRetry;
  /** Revision (Git commit id) of the configuration, recorded with the state by stores with a history. */
  revision?: string;
  /**
   * Compute the plan's basis fingerprints only when read (`PlanInput.lazyFingerprints`): for a run
   * that does not change the desired state or the live state it read (the plan's inputs) after
   * planning, such as `tgw plan` and `tgw apply` (apply calls the API, but its refresh result is
   * left as read). A run whose live state is kept and updated (`readLive`, watch) must not.
   */
  lazyFingerprints?: boolean;
  /**
   * Reads live state for a plan, instead of `refresh` (a list or GETs per kind). `tgw watch` passes one that
   * re-reads only what a file edit touched (src/watch/live-cache.ts).
   */
  readLive?: (scope: RefreshScope, state: StateSnapshot, signal?: AbortSignal) => Promise<LiveState>;
  /** Page cursors remembered between runs (./pages.ts `openPageCursors`); without `readLive` only. */
  pageCursors?: PageCursors;
}

/** Inputs of `reconcile`. */
export interface ReconcileInput {
  desired: DesiredState;
  api: Api;
  store: StateStore;
  options?: ReconcileOptions;
  signal?: AbortSignal;
  onEvent?: EventHandler;
  /**
   * Called when the state starts being written (the apply, or `refreshOnly`'s write), with `settle`:
   * it resolves once every result received so far is in the state, token files first, without waiting
   * for the calls in flight (./apply.ts `ApplyOptions.onStarted`). A driver that must exit before the
   * run ends (a second Ctrl-C) awaits it first.
   */
  onWriting?: (settle: () => Promise<void>) => void;
}

/** What a reconcile did. */
export interface ReconcileResult {
  plan: Plan;
  /** True when apply ran (API calls, or state updates only). */
  applied: boolean;
  /** Present when apply ran. */
  result?: ApplyResult;
  /** The state after the run. */
  state: StateSnapshot;
}

/**
 * Refreshes, plans, checks safety and (mode `apply`) applies.
 * @throws SharedRecordError, UnsafePlanError, StalePlanError, NotConfirmedError, ApplyFailedError,
 *   the state store's errors (LockTimeoutError...), ApiError / NetworkError from the refresh, or
 *   `signal.reason` when aborted before apply started.
 */
export async function reconcile(input: ReconcileInput): Promise<ReconcileResult> {
  const run: Run = { ...input, options: input.options ?? {}, emit: emitter(input.onEvent) };
  const { options, signal, emit } = run;
  const mode = options.mode ?? "apply";
  if (options.replace) checkReplaceAddresses(run.desired, options.replace);
  let unlock: Unlock | undefined;
  try {
    if (mode === "apply" && (options.lockScope ?? "run") === "run") unlock = await lockState(run);
    for (const address of await recoverTokenFiles(run.desired)) emit({ type: "token_saved", address });
    let state = await readState(run);
    let { plan, listing } = await planOnce(run, state);
    if (mode === "plan" || !wantsApply(run, plan, state, listing))
      return await withoutApply(run, plan, state, unlock !== undefined);
    signal?.throwIfAborted();
    if (options.approve && hasChanges(plan) && !(await options.approve(plan))) {
      throw new NotConfirmedError("apply cancelled: nothing was changed");
    }
    if (!unlock) {
      // lockScope "apply": planned without the lock; plan again if the state moved meanwhile.
      unlock = await lockState(run);
      const now = await readState(run);
      if (now.lineage !== state.lineage || now.serial !== state.serial) {
        state = now;
        ({ plan, listing } = await planOnce(run, state));
        if (!wantsApply(run, plan, state, listing)) return await withoutApply(run, plan, state);
      }
    }
    signal?.throwIfAborted();
    return await applyLocked(run, plan, state, listing);
  } finally {
    await unlock?.();
  }
}

/** One reconcile's inputs, with its options defaulted to `{}` and its event handler made safe. */
interface Run extends ReconcileInput {
  options: ReconcileOptions;
  emit: EventHandler;
}

/**
 * Takes the state lock of `input.store` as a reconcile does (for runs that hold it around one, such
 * as `apply --refresh-only`): tries once, then (with `lockTimeoutMs`) emits `lock_waiting` and waits.
 * @throws LockTimeoutError (or the store's other errors); `signal.reason` when aborted while waiting.
 */
export function takeStateLock(input: ReconcileInput): Promise<Unlock> {
  return lockState({ ...input, options: input.options ?? {}, emit: emitter(input.onEvent) });
}

/** `takeStateLock` for a run already set up. */
async function lockState({ store, options, signal, emit }: Run): Promise<Unlock> {
  const timeoutMs = options.lockTimeoutMs ?? 0;
  const holder = options.lockHolder ?? "tgw";
  try {
    return await store.lock({ timeoutMs: 0, holder });
  } catch (err) {
    if (!(err instanceof LockTimeoutError) || timeoutMs === 0) throw err;
    emit({ type: "lock_waiting", location: store.location });
    return store.lock({ timeoutMs, holder, ...(signal ? { signal } : {}) });
  }
}

/** Reads the state; a missing one (serial 0) takes `restartVersion` when given. */
async function readState({ store, options }: Run): Promise<StateSnapshot> {
  const read = await store.read();
  const restart = options.restartVersion;
  if (read.serial !== 0 || !restart) return read;
  return { ...read, lineage: restart.lineage, claims: { [restart.lineage]: restart.serial } };
}

/** A plan, and the listing the state holds once it is applied (./listing.ts `listingAfter`). */
interface Planned {
  plan: Plan;
  listing: StateListing;
}

/**
 * Checks the state's API, refreshes, plans, narrows to the targets and runs the safety checks,
 * emitting `refresh_started`, `refreshed`, `planned` and warnings.
 * @throws the errors of `checkStateApi`, `refresh`, `checkModuleParents`, `checkSavedPlan` and
 *   `checkPlanSafety`.
 */
async function planOnce(run: Run, state: StateSnapshot): Promise<Planned> {
  const { desired, store, options, emit } = run;
  if (options.apiIdentity) {
    const warnings = checkStateApi(state, options.apiIdentity, {
      location: store.location,
      ...(options.allowApiChange ? { allowApiChange: true } : {}),
    });
    for (const message of warnings) emit({ type: "warning", message });
  }
  const live = await refreshLive(run, state);
  if (!options.destroy) checkModuleParents(desired.resources, live);
  const whole = makePlan({
    desired,
    live,
    state,
    destroy: options.destroy === true,
    ...(options.replace ? { replace: options.replace } : {}),
    ...(desired.moved ? { moves: desired.moved } : {}),
    ...(options.lazyFingerprints && !options.readLive ? { lazyFingerprints: true } : {}),
  });
  const plan = selectTargets(whole, {
    ...(options.target ? { target: options.target } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  });
  emit({ type: "planned", plan });
  if (options.saved) checkSavedPlan(options.saved, plan);
  checkPlanSafety(plan, desired, options);
  if (plan.foreignLineages) {
    // Past checkPlanSafety: --takeover was given.
    const message = foreignLineageMessage(plan.stack, plan.foreignLineages);
    emit({ type: "warning", message: `${message}; --takeover given: this state takes them over` });
  }
  if (plan.unmanaged) emit({ type: "warning", message: unmanagedMessage(plan.stack, plan.unmanaged) });
  return { plan, listing: listingAfter(state, live) };
}

/**
 * Reads the live state the plan needs (`options.readLive`, or one `refresh`), between the events
 * `refresh_started` and `refreshed`.
 * @throws ApiError / NetworkError from the refresh; `signal.reason` when aborted.
 */
async function refreshLive(
  { desired, api, options, signal, emit }: Run,
  state: StateSnapshot,
): Promise<LiveState> {
  const scope = refreshScope(desired, state, options.destroy);
  emit({ type: "refresh_started", kinds: scope.kinds.length, modules: scope.modules.length });
  const t0 = performance.now();
  const live = options.readLive
    ? await options.readLive(scope, state, signal)
    : await refresh(api, scope, {
        ...(signal ? { signal } : {}),
        concurrency: options.refreshConcurrency ?? 16,
        ...(options.pageCursors ? { pageCursors: options.pageCursors } : {}),
      });
  options.pageCursors?.save();
  emit({
    type: "refreshed",
    objects: live.objects.size,
    modules: live.modules.size,
    durationMs: performance.now() - t0,
  });
  return live;
}

/**
 * True when the plan calls the API, changes the state, or the state has the API or a change of its
 * unrecorded kinds to record (a state never written is not written for them alone).
 */
function wantsApply(
  { desired, options }: Run,
  plan: Plan,
  state: StateSnapshot,
  listing: StateListing,
): boolean {
  return (
    needsApply(plan, desired, state) ||
    apiToRecord(plan, state, options.apiIdentity) ||
    listingToRecord(state, listing) ||
    plan.foreignLineages !== undefined
  );
}

/** What the plan says of unrecorded objects carrying this stack's marker, which it leaves alone. */
function unmanagedMessage(stack: string, unmanaged: NonNullable<Plan["unmanaged"]>): string {
  const n = unmanaged.length;
  const named = unmanaged
    .slice(0, 5)
    .map((u) => `${u.address} (${u.id})`)
    .join(", ");
  return `${n} object${n === 1 ? " carries" : "s carry"} the ownership marker of stack "${stack}" but no state record: ${named}${n > 5 ? `, and ${n - 5} more` : ""}; left alone (forgotten with tgw state rm, or made by a run whose state was not kept). Adopt one with tgw import, or delete it yourself`;
}

/** True when the state was written and its unrecorded kinds change (./listing.ts). */
function listingToRecord(state: StateSnapshot, listing: StateListing): boolean {
  return state.serial > 0 && !sameUnrecorded(state.listing, listing);
}

/**
 * The result of a run that does not apply, once the tokens the plan loses are reported; `locked` (an
 * apply with nothing to change, under the state lock) moves kept keys' tokens found elsewhere too.
 */
async function withoutApply(
  run: Run,
  plan: Plan,
  state: StateSnapshot,
  locked = false,
): Promise<ReconcileResult> {
  await reportLostTokens(run, plan, state, undefined, locked);
  return { plan, applied: false, state };
}

/**
 * Emits `token_lost` for each API key token the plan leaves lost here; after an apply (`applied`),
 * first moves kept keys' tokens found elsewhere into place (./tokens.ts `settleTokens`).
 */
async function reportLostTokens(
  { desired, emit, options }: Run,
  plan: Plan,
  state: StateSnapshot,
  recovered?: ReadonlyMap<string, string>,
  applied = false,
): Promise<void> {
  const settle = {
    records: state.resources,
    ...(recovered ? { recovered } : {}),
    ...(options.apiIdentity ? { api: options.apiIdentity } : {}),
    ...(applied ? { move: emit } : {}),
  };
  for (const t of await settleTokens(plan, desired, settle)) emit({ type: "token_lost", ...t });
}

/**
 * Applies `plan` (the state lock held) through a state journal, then moves token files and reports
 * lost tokens. The result's `state` is made when read.
 * @throws ApplyFailedError, the state store's errors.
 */
async function applyLocked(
  run: Run,
  plan: Plan,
  state: StateSnapshot,
  listing: StateListing,
): Promise<ReconcileResult> {
  const { desired, api, store, options, signal, emit } = run;
  const journal = openJournal(run, plan, state, listing);
  let settle = () => journal.flush().catch(() => {});
  run.onWriting?.(() => settle());
  // Unrecorded kinds are written before the first create (a crash may leave its object unrecorded);
  // the API even when the plan has nothing else to write (otherwise the first write of the apply
  // carries it, so serials count as before).
  const takeover = plan.foreignLineages !== undefined && !hasChanges(plan);
  if (
    listingToRecord(state, listing) ||
    takeover ||
    (apiToRecord(plan, state, options.apiIdentity) && !hasChanges(plan))
  )
    await journal.update(() => {}, { now: true });
  const recovered = new Map<string, string>();
  const writer = canFence(store) ? fencedApi(api, store) : api;
  const result = await applyPlan(plan, desired, writer, journal, {
    parallelism: options.parallelism ?? 4,
    ...(signal ? { signal } : {}),
    ...(options.createRetry ? { createRetry: options.createRetry } : {}),
    ...(options.tokenCommand ? { tokenCommand: options.tokenCommand } : {}),
    ...(canFence(store) ? { fence: () => store.assertLockHeld() } : {}),
    ...(options.apiIdentity ? { apiIdentity: options.apiIdentity } : {}),
    onStarted: (settleApply) => {
      settle = settleApply;
    },
    onEvent: (e) => {
      if (e.type === "create_recovered") recovered.set(e.address, e.id);
      emit(e);
    },
  });
  await reportLostTokens(run, plan, state, recovered, true);
  // Made when read (watch reads it; the CLI does not): a copy of every record.
  let after: StateSnapshot | undefined;
  return {
    plan,
    applied: true,
    result,
    get state() {
      after ??= journal.snapshot;
      return after;
    },
  };
}

/**
 * The journal the apply writes the state through: starting from `state` (with this run's API and the
 * listing its read leads to), it
 * emits `state_written` and records the plan's changes, the command and the revision in the history.
 */
function openJournal(
  { desired, store, options, emit }: Run,
  plan: Plan,
  state: StateSnapshot,
  listing: StateListing,
): StateJournal {
  const claims = claimsAfterTakeover(state, plan.foreignLineages);
  const recorded = {
    ...state,
    ...(options.apiIdentity ? { api: options.apiIdentity } : {}),
    listing,
    ...(claims ? { claims } : {}),
  };
  return new StateJournal(
    store,
    recorded,
    (s) => emit({ type: "state_written", serial: s.serial }),
    {
      plan: plan.changes
        .filter((c) => isChange(c.action))
        .map((c) => ({ address: c.address, kind: c.kind, action: c.action })),
      command: options.lockHolder ?? "tgw",
      ...(options.revision === undefined ? {} : { revision: options.revision }),
    },
    // With markers no call waits for its write (./operations.ts `recorded`): results are gathered.
    { gatherMs: desired.ownership === "marker" ? JOURNAL_GATHER_MS : 0 },
  );
}

/**
 * Refuses `--replace` addresses that the configuration does not have, or that are modules (a module's
 * identity is its path: it can only be set again, which a changed field does).
 * @throws UsageError naming the address, with the closest one of the configuration.
 */
export function checkReplaceAddresses(desired: DesiredState, addresses: readonly string[]): void {
  const known = new Map(desired.resources.map((r) => [r.address, r]));
  for (const address of addresses) {
    const r = known.get(address);
    if (!r) {
      throw new UsageError(
        `--replace ${address}: no such address in the configuration${didYouMean(address, known.keys())}`,
      );
    }
    if (getKind(r.kind).module) throw new UsageError(`--replace ${address}: a module cannot be replaced`);
  }
}

/** True when the state manages objects but does not record the API of this run yet. */
function apiToRecord(plan: Plan, state: StateSnapshot, api: StateApi | undefined): boolean {
  return api !== undefined && !sameApi(state.api, api) && plan.changes.length > 0;
}

/** True when applying `plan` would call the API or change the state. */
export function needsApply(plan: Plan, desired: DesiredState, state: StateSnapshot): boolean {
  if (hasChanges(plan) || plan.forget.length > 0 || plan.recover) return true;
  const ids = new Map(plan.changes.flatMap((c) => (c.id ? [[c.address, c.id] as const] : [])));
  const resources = new Map(desired.resources.map((r) => [r.address, r]));
  return plan.changes.some((c) => {
    const resource = resources.get(c.address);
    if (c.action !== "no-op" || !c.id || !resource) return false;
    const fields = resolveRefs(resource.fields, (a) => ids.get(a));
    const before = state.resources[c.address];
    return !sameRecord(
      before,
      keepDelivery(buildRecord(getKind(c.kind), resource, c.id, fields, new Date()), before),
    );
  });
}
