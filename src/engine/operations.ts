/**
 * The API call of each apply step, one function per operation, each with its recovery:
 *
 * - create: the ownership marker goes into the create call itself; a create whose outcome is unknown
 *   (5xx, connection lost) is never sent again blindly: after a short backoff (time for an object still
 *   being made to appear) the kind is listed, and an object carrying the marker is adopted. When none
 *   does, the create did not happen and is sent again, at most `createRetry.retries` times; a list
 *   that fails is tried again within the same bound. A replace that creates first records the old object as deposed before the POST,
 *   so that a crash in between leaves nothing untracked. An API key's token is written to its token
 *   file (mode 0600) before the state records the key.
 * - update (PATCH) and put (modules): sent as planned; the client retries them (idempotent).
 * - delete: a 404 means it is already gone, which is what was wanted.
 * - forget (a `removed:` entry): the ownership marker is taken out of the metadata, the record dropped;
 *   an API key's default token file is moved aside (./tokens.ts `setAsideKeysToken`).
 * - An API key's token file is never overwritten: a new key's token file found holding a token is set
 *   aside first, and a deleted key's token file is set aside (its token is dead).
 *
 * Every function records its result in the state (./journal.ts) and returns the object's id (a
 * module's path).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { exponentialDelay } from "../client/backoff.js";
import { type Api, ApiError, NetworkError } from "../client/index.js";
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { getKind, type KindDescriptor, type OwnershipMarker } from "../model/index.js";
import { configuredTokenFile, returnsToken, tokenFilePath } from "../model/token-file.js";
import type { StateApi, TokenDelivery } from "../state/store.js";
import type { Change, Values } from "./action.js";
import { CreateFailedError } from "./errors.js";
import type { EventHandler } from "./events.js";
import type { StateJournal } from "./journal.js";
import { liveMetadataOf } from "./live.js";
import { DEPOSED_SUFFIX } from "./ownership.js";
import { PENDING_SUFFIX } from "./pending.js";
import { buildRecord, deposedRecord, keepDelivery } from "./records.js";
import { holdsRefs, resolveRefs } from "./refs.js";
import { createBody, patchBody, putBody } from "./requests.js";
import type { Step } from "./steps.js";
import { runTokenCommand } from "./token-command.js";
import { tokenDigest } from "./token-sidecar.js";
import {
  defaultTokenPath,
  keyAsidePath,
  type SidecarIndex,
  setAsideKeysToken,
  sidecarIndex,
  takeBackKeyToken,
  writeKeyToken,
} from "./tokens.js";

/** A token an API key create returned (kept in memory only, for `apply --json --show-tokens`). */
export interface IssuedToken {
  address: string;
  id: string;
  /** Absolute path of the token file it was written to; absent when the token command took it. */
  file?: string;
  token: string;
}

/** Bound and backoff of sending a create again once it is proven not to have happened. */
export interface CreateRetry {
  /** Retries after the first attempt (0: look for the marker once, never send again). */
  retries: number;
  /** Backoff ceiling of the first retry, in ms; doubles on each retry (full jitter). */
  baseDelayMs: number;
  /** Upper bound of a backoff, in ms. */
  maxDelayMs: number;
}

/** Defaults: 6 retries, 250 ms doubling up to 15 s (at most about 16 s of waiting per create). */
export const DEFAULT_CREATE_RETRY: CreateRetry = { retries: 6, baseDelayMs: 250, maxDelayMs: 15_000 };

/** What the operations of one apply share. */
export interface ApplyContext {
  api: Api;
  journal: StateJournal;
  desired: DesiredState;
  /** The desired resources by address. */
  resources: ReadonlyMap<string, DesiredResource>;
  emit: EventHandler;
  /** Clock for `appliedAt`. */
  now: () => Date;
  /** Ids known so far by address (the plan's, then each create's): references resolve through it. */
  ids: Map<string, string>;
  /** The create id of each create the state records as pending, by address (./pending.ts). */
  createIds: Map<string, string>;
  /** Addresses whose create was sent and may have happened: their pending records stay. */
  sent: Set<string>;
  /** Tokens issued by this apply, in the order they were written. */
  tokens: IssuedToken[];
  createRetry: CreateRetry;
  /** Once aborted, a create is not sent again (backoffs end early). */
  signal?: AbortSignal | undefined;
  /** The token command new API keys' tokens are handed to instead of their files (./token-command.ts). */
  tokenCommand?: string | undefined;
  /** Throws when the state lock was lost (./fencing.ts); a token is then set aside, not written in place. */
  fence?: (() => Promise<void>) | undefined;
  /** The API of the run, which token files' sidecars name (./tokens.ts). */
  apiIdentity?: StateApi | undefined;
}

/**
 * Sends the call of `step` and records its result; `callsDone()` is called once no API call is left
 * (when local work, a token file, follows).
 * @returns the id of the object (a module's path).
 * @throws ApiError / NetworkError from the API, CreateFailedError, Error when a token file cannot be
 *   written, or the state store's errors (without markers, where each call waits for its write).
 */
export function runOperation(
  ctx: ApplyContext,
  step: Step,
  callsDone: () => void = () => {},
): Promise<string> {
  const kind = getKind(step.change.kind);
  switch (step.op) {
    case "create":
      return createObject(ctx, step.change, kind, callsDone);
    case "update":
      return updateObject(ctx, step.change, kind);
    case "put":
      return putModule(ctx, step.change, kind);
    case "delete":
      return deleteObject(ctx, step.change, kind);
    case "forget":
      return forgetObject(ctx, step.change, kind);
  }
}

/** Path of one object of a collection kind. */
export function objectPath(kind: KindDescriptor, id: string): string {
  return `${kind.path}/${encodeURIComponent(id)}`;
}

/**
 * POST with the marker; on an unknown outcome, adopt the object the marker finds. The token file is
 * written after `callsDone()`: the next call need not wait for the disk.
 */
async function createObject(
  ctx: ApplyContext,
  c: Change,
  kind: KindDescriptor,
  callsDone: () => void,
): Promise<string> {
  const resource = desiredOf(ctx, c.address);
  // Most resources hold no ref: their fields are sent as they are, and the values the plan compared
  // (`c.after`, made from the same fields) are the record's; no copy and no second normalisation.
  const plain = !holdsRefs(resource.fields);
  const fields = plain ? resource.fields : resolveRefs(resource.fields, (a) => ctx.ids.get(a));
  const values = plain ? c.after : undefined;
  const marker = markerOf(ctx, kind, c.address, ctx.createIds.get(c.address));
  const oldId = c.action === "replace" ? c.id : undefined;
  if (oldId && c.replaceOrder === "create-first")
    await ctx.journal.set(deposedRecord(c.address, kind.kind, oldId, ctx.now()), { now: true });
  const body = createBody(kind, c.address, fields, marker);
  let outcome = await tracked(ctx, c.address, () => postOrRecover(ctx, c.address, kind, body, marker, oldId));
  // An API key found by its marker after the create's answer was lost: that answer held its only
  // token, so nobody can be using the key. It is recorded (a kill from here leaves a known object),
  // deleted and created again, so that the token reaches its file (issue 31: a token is never lost
  // silently). Each such round counts as one more try of the create, within `createRetry.retries`.
  const reissues = ctx.createRetry.retries;
  for (let attempt = 0; "recovered" in outcome && c.tokenFile && attempt < reissues; attempt++) {
    const lost = outcome.recovered;
    await recordResult(ctx, kind, resource, lost, fields, values);
    await deleteById(ctx, kind, lost, c.address);
    ctx.emit({ type: "token_reissued", address: c.address, id: lost });
    outcome = await tracked(ctx, c.address, () => postOrRecover(ctx, c.address, kind, body, marker, oldId));
  }
  const pending = marker?.create === undefined ? undefined : c.address + PENDING_SUFFIX;
  if ("recovered" in outcome) {
    ctx.emit({ type: "create_recovered", address: c.address, id: outcome.recovered });
    await recordResult(ctx, kind, resource, outcome.recovered, fields, values, undefined, pending);
    ctx.ids.set(c.address, outcome.recovered);
    return outcome.recovered;
  }
  const created = outcome.created;
  const id = String(created.id);
  if (c.tokenFile) callsDone();
  const kept = await keepToken(ctx, c, resource, id, created.token);
  await recordResult(ctx, kind, resource, id, fields, values, kept.delivered, pending);
  ctx.ids.set(c.address, id);
  if (kept.error !== undefined) {
    throw new Error(
      `created ${id}, but its token could not be written to ${c.tokenFile}: ${(kept.error as Error).message}; the token is lost (delete the key and apply again for a new one)`,
    );
  }
  return id;
}

/** PATCH the changed fields. */
async function updateObject(ctx: ApplyContext, c: Change, kind: KindDescriptor): Promise<string> {
  const resource = desiredOf(ctx, c.address);
  const fields = resolveRefs(resource.fields, (a) => ctx.ids.get(a));
  const id = c.id as string;
  await ctx.api.patch(
    objectPath(kind, id),
    patchBody(kind, c.address, fields, c.changedFields, markerOf(ctx, kind, c.address)),
  );
  return recordResult(ctx, kind, resource, id, fields);
}

/** PUT a module at its path (its id). */
async function putModule(ctx: ApplyContext, c: Change, kind: KindDescriptor): Promise<string> {
  const resource = desiredOf(ctx, c.address);
  const fields = resolveRefs(resource.fields, (a) => ctx.ids.get(a));
  const path = c.id as string;
  await ctx.api.put(path, putBody(kind, c.address, fields));
  return recordResult(ctx, kind, resource, path, fields);
}

/**
 * DELETE (a 404 counts as done) and drop the record, or the deposed record of a replace. A deleted API
 * key's token file (when its sidecar, or for a file from before sidecars the record's digest, says it
 * holds that key's token) is set aside: a dead token must not pass later for another key's.
 */
async function deleteObject(ctx: ApplyContext, c: Change, kind: KindDescriptor): Promise<string> {
  const id = c.id as string;
  const address =
    c.action === "replace" && c.replaceOrder === "create-first" ? c.address + DEPOSED_SUFFIX : c.address;
  const before = ctx.journal.records[address];
  await deleteById(ctx, kind, id, address);
  if (returnsToken(kind.kind)) {
    const resource = ctx.resources.get(c.address);
    const file = resource
      ? tokenFilePath(configuredTokenFile(resource), ctx.desired.configDir)
      : defaultTokenPath(c.address, ctx.desired.configDir);
    const digest = before?.id === id ? before.tokenDelivered?.digest : undefined;
    const aside = await setAsideKeysToken(file, c.address, id, digest, ...keyTokenFiles(ctx));
    if (aside) ctx.emit({ type: "token_set_aside", address: c.address, path: aside, reason: "deleted" });
  }
  return id;
}

/**
 * Stops managing an object (a `removed:` entry) and keeps it: PATCHes the metadata the plan worked out
 * without the ownership marker (`Change.after`, when the object carries one), then drops the record.
 * A 404 counts as done: the object is gone, and there is nothing left to manage.
 */
async function forgetObject(ctx: ApplyContext, c: Change, kind: KindDescriptor): Promise<string> {
  const id = c.id as string;
  const before = ctx.journal.records[c.address];
  const field = kind.metadataField;
  if (field !== undefined && c.changedFields.includes(field)) {
    try {
      await ctx.api.patch(objectPath(kind, id), { [field]: c.after?.[field] });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  await recorded(
    ctx,
    ctx.journal.update((records) => {
      if (records[c.address]?.id === id) delete records[c.address];
    }),
  );
  if (returnsToken(kind.kind)) {
    const file = defaultTokenPath(c.address, ctx.desired.configDir);
    const digest = before?.id === id ? before.tokenDelivered?.digest : undefined;
    const aside = await setAsideKeysToken(file, c.address, id, digest, ...keyTokenFiles(ctx));
    if (aside) ctx.emit({ type: "token_set_aside", address: c.address, path: aside, reason: "removed" });
  }
  return id;
}

const keyTokenFilesOf = new WeakMap<ApplyContext, [Set<string>, SidecarIndex]>();

/**
 * The token files this apply's creates write (the keys it creates or replaces: a deleted key's token
 * is not looked for there), and the apply's index of sidecars; made at the first deleted or let-go key.
 */
function keyTokenFiles(ctx: ApplyContext): [Set<string>, SidecarIndex] {
  let files = keyTokenFilesOf.get(ctx);
  if (files === undefined) {
    const taken = new Set<string>();
    for (const address of ctx.createIds.keys()) {
      const r = ctx.resources.get(address);
      if (r && returnsToken(r.kind)) taken.add(tokenFilePath(configuredTokenFile(r), ctx.desired.configDir));
    }
    files = [taken, sidecarIndex()];
    keyTokenFilesOf.set(ctx, files);
  }
  return files;
}

/** DELETE the object `id` (a 404 counts as done) and drop the record of `address` if it holds `id`. */
async function deleteById(
  ctx: ApplyContext,
  kind: KindDescriptor,
  id: string,
  address: string,
): Promise<void> {
  try {
    await ctx.api.delete(kind.module ? id : objectPath(kind, id));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  await recorded(
    ctx,
    ctx.journal.update((records) => {
      if (records[address]?.id === id) delete records[address];
    }),
  );
}

/**
 * Hands an API key's token to the token command, or writes it to its file (also when the command
 * failed: the token is not lost). Returns where it went, or the error of the file write (the key
 * exists anyway).
 */
async function keepToken(
  ctx: ApplyContext,
  c: Change,
  resource: DesiredResource,
  id: string,
  token: unknown,
): Promise<{ delivered?: TokenDelivery; error?: unknown }> {
  if (!c.tokenFile || typeof token !== "string") return {};
  if (ctx.tokenCommand) {
    try {
      await runTokenCommand(ctx.tokenCommand, { address: c.address, id, stack: ctx.desired.stack }, token);
      ctx.tokens.push({ address: c.address, id, token });
      ctx.emit({ type: "token_delivered", address: c.address });
      return { delivered: { to: "command" } };
    } catch (err) {
      ctx.emit({
        type: "warning",
        message: `${c.address}: ${(err as Error).message}; its token is written to ${c.tokenFile} instead`,
      });
    }
  }
  // The configured file (absolute once loaded), which the plan shows as `c.tokenFile`: no path.resolve per key.
  let file = tokenFilePath(configuredTokenFile(resource), ctx.desired.configDir);
  const key = { id, address: c.address, api: ctx.apiIdentity };
  try {
    // Answered after the state lock was taken over: the new holder owns the token files (it may have
    // made the key again); this token, the key's only copy, is written aside.
    let lost = await lockLost(ctx);
    if (lost) file = keyAsidePath(file, key);
    // Queued with others unless it goes aside: the check below runs once the file is in place, queued or not.
    const aside = await writeKeyToken(file, token, key, lost);
    if (!lost && (await lockLost(ctx))) {
      // Lost while writing (a freeze after the check): taken back, the new holder's file restored.
      file = await takeBackKeyToken(file, key, aside?.path);
      lost = true;
    }
    if (lost) ctx.emit({ type: "token_set_aside", address: c.address, path: file, reason: "lock_lost" });
    else if (aside) ctx.emit({ type: "token_set_aside", address: c.address, ...aside, reason: "occupied" });
  } catch (err) {
    return { error: err };
  }
  ctx.tokens.push({ address: c.address, id, file, token });
  ctx.emit({ type: "token_written", address: c.address, path: file });
  return { delivered: { to: "file", digest: tokenDigest(token) } };
}

/**
 * Records `resource` as object `id` (`values`: its comparable values when known, see buildRecord),
 * dropping the pending record `pending` in the same write.
 */
async function recordResult(
  ctx: ApplyContext,
  kind: KindDescriptor,
  resource: DesiredResource,
  id: string,
  fields: Record<string, unknown>,
  values?: Values,
  delivered?: TokenDelivery,
  pending?: string,
): Promise<string> {
  const record = buildRecord(kind, resource, id, fields, ctx.now(), values);
  if (delivered) record.tokenDelivered = delivered;
  else keepDelivery(record, ctx.journal.records[resource.address]);
  // A result nobody waits for is noted without a promise of its own (10,000 per large apply).
  if (waitsForState(ctx)) await ctx.journal.set(record, {}, pending);
  else ctx.journal.note(record, pending);
  return id;
}

/** True when `ctx.fence` says the state lock was lost. */
async function lockLost(ctx: ApplyContext): Promise<boolean> {
  if (ctx.fence === undefined) return false;
  return ctx.fence().then(
    () => false,
    () => true,
  );
}

/**
 * `send()` (a create through `postOrRecover`), noting in `ctx.sent` that the create of `address` may
 * have happened unless its answer proves it did not (its pending record is then dropped at the end of
 * the apply).
 */
async function tracked<T>(ctx: ApplyContext, address: string, send: () => Promise<T>): Promise<T> {
  ctx.sent.add(address);
  try {
    return await send();
  } catch (err) {
    if (err instanceof CreateFailedError || !mayHaveBeenCreated(err)) ctx.sent.delete(address);
    throw err;
  }
}

/**
 * With markers, a result not yet written is found again through its marker after a crash, so calls do
 * not wait for the state write (writes are coalesced and keep up in the background); without markers
 * the state is the only record, and each call waits until its result is written.
 */
function waitsForState(ctx: ApplyContext): boolean {
  return ctx.desired.ownership !== "marker";
}

/** `written`, or at once when the call need not wait for it (`waitsForState`). */
function recorded(ctx: ApplyContext, written: Promise<void>): Promise<void> {
  if (waitsForState(ctx)) return written;
  written.catch(() => {}); // reported by `journal.flush()` and `journal.failed`
  return Promise.resolve();
}

function desiredOf(ctx: ApplyContext, address: string): DesiredResource {
  const r = ctx.resources.get(address);
  if (!r) throw new Error(`${address} is not in the desired state the plan was made from`);
  return r;
}

/**
 * The marker tgw writes: this stack, the address, the lineage and a serial the state has already
 * written, and in a create call its create id (./pending.ts).
 */
function markerOf(
  ctx: ApplyContext,
  kind: KindDescriptor,
  address: string,
  create?: string,
): OwnershipMarker | undefined {
  const { desired } = ctx;
  if (desired.ownership !== "marker" || kind.module) return undefined;
  const marker: OwnershipMarker = {
    stack: desired.stack,
    address,
    lineage: ctx.journal.lineage,
    serial: ctx.journal.markerSerial,
  };
  if (create !== undefined) marker.create = create;
  return marker;
}

function mayHaveBeenCreated(err: unknown): boolean {
  return (err instanceof ApiError || err instanceof NetworkError) && err.mayHaveBeenCreated;
}

/**
 * POSTs `body`. When the outcome is unknown, waits, then looks for `marker`: an object carrying it is
 * `recovered`; when there is none the create is sent again; a failed list is tried again. Each retry
 * of either kind counts against `ctx.createRetry.retries`.
 * @throws the POST's error when the outcome stays unknown or the create cannot have happened (4xx...),
 *   CreateFailedError when the bound is reached with the create proven not to have happened.
 */
async function postOrRecover(
  ctx: ApplyContext,
  address: string,
  kind: KindDescriptor,
  body: unknown,
  marker: OwnershipMarker | undefined,
  exclude: string | undefined,
): Promise<{ created: Record<string, unknown> } | { recovered: string }> {
  const { retries } = ctx.createRetry;
  let used = 0;
  const canRetry = () => used < retries && !ctx.signal?.aborted;
  // Before each look: time for an object the API is still making to appear in its list.
  const pause = async () => {
    const waitMs = retries === 0 ? 0 : backoffMs(ctx.createRetry, used + 1);
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: ctx.signal }).catch(() => {});
  };
  for (;;) {
    let error: unknown;
    try {
      return { created: await ctx.api.post<Record<string, unknown>>(kind.path, body) };
    } catch (err) {
      if (!marker || !mayHaveBeenCreated(err)) throw err;
      error = err;
    }
    let found = await pause().then(() => findByMarker(ctx.api, kind, marker, exclude));
    while (found === false && canRetry()) {
      used++;
      found = await pause().then(() => findByMarker(ctx.api, kind, marker, exclude));
    }
    if (found === false) throw error;
    if (found !== undefined) return { recovered: found };
    if (!canRetry()) throw new CreateFailedError(error);
    used++;
    ctx.emit({ type: "create_retrying", address, attempt: used + 1 });
  }
}

function backoffMs(retry: CreateRetry, attempt: number): number {
  return exponentialDelay(attempt, { baseMs: retry.baseDelayMs, maxMs: retry.maxDelayMs, jitter: "full" });
}

/**
 * Lists `kind` for an object carrying `marker` (other than `exclude`): its id, undefined when there is
 * none, false when the list itself failed (the outcome stays unknown).
 */
async function findByMarker(
  api: Api,
  kind: KindDescriptor,
  marker: OwnershipMarker,
  exclude: string | undefined,
): Promise<string | undefined | false> {
  try {
    for await (const item of api.list<Record<string, unknown>>(kind.path, kind.listKey as string, {
      limit: 100,
    })) {
      if (item.id === exclude) continue;
      const m = liveMetadataOf(kind, item)?.marker;
      if (m?.stack !== marker.stack || m.address !== marker.address) continue;
      if (marker.create === undefined || m.create === marker.create) return String(item.id);
    }
  } catch {
    // The API is still failing: the next plan finds the object through its marker.
    return false;
  }
  return undefined;
}
