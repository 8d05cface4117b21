/**
 * Apply: executes a plan against the API, recording every result in the state as soon as it
 * happens (./journal.ts). The plan is followed exactly; nothing is re-planned here.
 *
 * - Before any call, the state is brought in line with what the plan found without calls: records of
 *   objects recovered from their markers are written, records of vanished objects dropped.
 * - The calls (./steps.ts) run with bounded concurrency (`parallelism`, default 4) in dependency order
 *   (./schedule.ts); the API client's rate limiter paces them further. Each operation and its recovery
 *   is in ./operations.ts (creates carry the ownership marker; a create whose outcome is unknown is
 *   looked for by its marker, never sent again blindly; tokens reach their file before the state).
 * - A failed call does not stop the others: every step that does not depend on a failed one still
 *   runs, and all failures are reported together at the end, in an `ApplyFailedError` with the outcome
 *   of every change (./outcomes.ts). Nothing new starts once `signal` is aborted, a state write
 *   failed, the state lock was found lost (./fencing.ts: the apply then fails with that error), or the
 *   API was found unreachable (connection refused...: the next run, or watch's backoff, paces the
 *   attempts); calls in flight finish and are recorded.
 */
import { type Api, NetworkError } from "../client/index.js";
import type { DesiredState } from "../model/desired.js";
import { getKind } from "../model/index.js";
import { StateLockLostError } from "../state/errors.js";
import type { StateApi, StateRecord } from "../state/store.js";
import type { Plan } from "./action.js";
import { ApplyFailedError, type ChangeOutcome } from "./errors.js";
import { type EventHandler, emitter } from "./events.js";
import type { StateJournal } from "./journal.js";
import {
  type ApplyContext,
  type CreateRetry,
  DEFAULT_CREATE_RETRY,
  type IssuedToken,
  runOperation,
} from "./operations.js";
import { ApplyProgress } from "./outcomes.js";
import { newCreateId, PENDING_SUFFIX, pendingRecord } from "./pending.js";
import { buildRecord, keepDelivery, sameRecord } from "./records.js";
import { resolveRefs } from "./refs.js";
import { runSteps } from "./schedule.js";
import { buildSteps } from "./steps.js";

export { type CreateRetry, DEFAULT_CREATE_RETRY, type IssuedToken, objectPath } from "./operations.js";

/** Options of `applyPlan`. */
export interface ApplyOptions {
  /** Calls in flight at once; default 4. */
  parallelism?: number;
  /** Once aborted, nothing new starts; calls in flight finish. */
  signal?: AbortSignal;
  onEvent?: EventHandler;
  /** Clock for `appliedAt` (tests). */
  now?: () => Date;
  /** Sending a create again once it is proven not to have happened; default `DEFAULT_CREATE_RETRY`. */
  createRetry?: CreateRetry;
  /** Hand new API keys' tokens to this command instead of their files (./token-command.ts). */
  tokenCommand?: string;
  /** The API of the run, which new token files' sidecars name (./tokens.ts). */
  apiIdentity?: StateApi;
  /**
   * Throws when the state lock was lost (a store that fences, ./fencing.ts): a token answered after
   * that is set aside instead of written to its file.
   */
  fence?: () => Promise<void>;
  /**
   * Called before the first call with `settle`, which resolves once every result received so far is
   * written to the state (a new key's token reaching its file first), without waiting for the calls
   * in flight; it never rejects (a failed write is the apply's error). For a driver that must stop
   * before the apply ends (a second Ctrl-C): nothing the API answered is left unrecorded.
   */
  onStarted?: (settle: () => Promise<void>) => void;
}

/** What an apply did. */
export interface ApplyResult {
  /** One per change of the plan that calls the API, in plan order. */
  outcomes: ChangeOutcome[];
  tokens: IssuedToken[];
}

/**
 * Applies `plan` (made from `desired`).
 * @throws ApplyFailedError when a call failed or the run was aborted; the state holds everything done.
 * @throws the state store's errors if the state cannot be written, StateLockLostError if the state
 * lock was lost (nothing further is started).
 */
export async function applyPlan(
  plan: Plan,
  desired: DesiredState,
  api: Api,
  journal: StateJournal,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const ctx: ApplyContext = {
    api,
    journal,
    desired,
    resources: new Map(desired.resources.map((r) => [r.address, r])),
    emit: emitter(options.onEvent),
    now: options.now ?? (() => new Date()),
    ids: new Map(),
    createIds: new Map(),
    sent: new Set(),
    tokens: [],
    createRetry: options.createRetry ?? DEFAULT_CREATE_RETRY,
    signal: options.signal,
    tokenCommand: options.tokenCommand,
    fence: options.fence,
    apiIdentity: options.apiIdentity,
  };
  for (const c of plan.changes)
    if (c.id && c.action !== "create" && !getKind(c.kind).module) ctx.ids.set(c.address, c.id);
  const received = new Set<Promise<void>>();
  options.onStarted?.(() => settle(received, journal));
  await syncState(ctx, plan);

  const steps = buildSteps(plan.changes);
  const progress = new ApplyProgress(steps, ctx.emit);
  let unreachable = false;
  let lockLost: StateLockLostError | undefined;
  const results = await runSteps(steps, options.parallelism ?? 4, {
    run: (step, callsDone) => withReceived(received, (done) => runOperation(ctx, step, done), callsDone),
    halted: () => unreachable || lockLost !== undefined || options.signal?.aborted === true || journal.failed,
    started: (step) => progress.started(step),
    finished: (step, result) => {
      if (result.status === "failed" && isUnreachable(result.error)) unreachable = true;
      if (result.status === "failed" && result.error instanceof StateLockLostError) lockLost ??= result.error;
      progress.finished(step, result);
    },
  });
  await dropUnsent(ctx);
  // Every result is written before apply returns; a state write failure is an error of the apply.
  await journal.flush();
  // The state lock was lost (./fencing.ts): the run stops as a state write refused for it would.
  if (lockLost !== undefined) throw lockLost;

  const outcomes = progress.outcomes(plan.changes, results);
  if (outcomes.some((o) => o.status !== "done")) {
    const interrupted = !outcomes.some((o) => o.status === "failed") && options.signal?.aborted === true;
    throw new ApplyFailedError(outcomes, interrupted, interrupted ? options.signal?.reason : undefined);
  }
  return { outcomes, tokens: ctx.tokens };
}

/**
 * Runs an operation; from its `callsDone()` (its answer received: what is left is local work, a token
 * file, then its record) until it ends, a promise of its end is in `received`.
 */
function withReceived(
  received: Set<Promise<void>>,
  operation: (callsDone: () => void) => Promise<string>,
  callsDone: () => void,
): Promise<string> {
  let ended = () => {};
  const end = new Promise<void>((resolve) => {
    ended = resolve;
  });
  return operation(() => {
    received.add(end);
    callsDone();
  }).finally(() => {
    received.delete(end);
    ended();
  });
}

/** Resolves once the operations whose answers came have recorded them, and the state is written. */
async function settle(received: Set<Promise<void>>, journal: StateJournal): Promise<void> {
  await Promise.all(received);
  await journal.flush().catch(() => {});
}

/**
 * State-only updates before any call, in one write: records of objects adopted or found by their
 * pending creates, stale fingerprints, records of vanished objects dropped, and (with ownership
 * markers) a pending record for every create of the plan (./pending.ts), so that no create is sent
 * before the state names it.
 */
async function syncState(ctx: ApplyContext, plan: Plan): Promise<void> {
  const records = ctx.journal.records;
  const recovered = new Map((plan.recover ?? []).map((r) => [r.address, r]));
  const adopted = plan.changes.flatMap((c) => {
    const resource = ctx.resources.get(c.address);
    if (c.action !== "no-op" || !c.id || !resource) return [];
    const fields = resolveRefs(resource.fields, (a) => ctx.ids.get(a));
    const before = records[c.address] ?? recovered.get(c.address);
    const record = keepDelivery(buildRecord(getKind(c.kind), resource, c.id, fields, ctx.now()), before);
    return sameRecord(records[c.address], record) ? [] : [record];
  });
  // A renamed object's record (`moved:`) moves in the write that forgets its old address: a run cut
  // off before its update (the marker's PATCH) must not leave the object unrecorded.
  const renamed = plan.changes.flatMap((c) => {
    const old = c.movedFrom && c.action === "update" ? records[c.movedFrom] : undefined;
    return old?.id === c.id && old ? [{ ...old, address: c.address }] : [];
  });
  const pending = ctx.desired.ownership === "marker" ? pendingCreates(ctx, plan) : [];
  const forget = plan.forget.filter((a) => a in records);
  const recover = [...recovered.values()];
  if (adopted.length + renamed.length + forget.length + pending.length + recover.length === 0) return;
  await ctx.journal.update(
    (recs) => {
      for (const address of forget) delete recs[address];
      for (const record of [...recover, ...renamed, ...adopted, ...pending]) recs[record.address] = record;
    },
    { now: true },
  );
}

/** A pending record (and create id, in `ctx.createIds`) for each create and replace of `plan`. */
function pendingCreates(ctx: ApplyContext, plan: Plan): StateRecord[] {
  const out: StateRecord[] = [];
  for (const c of plan.changes) {
    const resource = ctx.resources.get(c.address);
    if ((c.action !== "create" && c.action !== "replace") || !resource || getKind(c.kind).module) continue;
    const createId = newCreateId();
    ctx.createIds.set(c.address, createId);
    out.push(
      pendingRecord(buildRecord(getKind(c.kind), resource, createId, resource.fields, ctx.now()), createId),
    );
  }
  return out;
}

/**
 * Drops the pending records of creates that were never sent (the apply was stopped, or a step they
 * depend on failed), or whose answer proved they did not happen: nothing of them can be live.
 */
async function dropUnsent(ctx: ApplyContext): Promise<void> {
  const unsent = [...ctx.createIds.keys()].filter(
    (a) => !ctx.sent.has(a) && ctx.journal.records[a + PENDING_SUFFIX] !== undefined,
  );
  if (unsent.length === 0) return;
  await ctx.journal
    .update((recs) => {
      for (const address of unsent) delete recs[address + PENDING_SUFFIX];
    })
    .catch(() => {}); // reported by `journal.flush()`
}

/** No connection could be made to the API (refused, unreachable host...): no use trying the other steps. */
function isUnreachable(err: Error): boolean {
  return err instanceof NetworkError && err.unreachable;
}
