/**
 * The operations on stored objects, for every kind, without HTTP: the route builders
 * (../routes/collection.ts, ../routes/module.ts) and the fixtures loader call these. Order of checks,
 * so that a refused request changes nothing: the caller's rights (403), the owner rule (403),
 * references (404), the kind's own rules (400...), and only then one transaction of writes, then the
 * event.
 */
import { getKind, type KindDescriptor } from "../../model/index.js";
import { problems } from "../errors.js";
import { isWellFormedId, newId } from "../ids.js";
import type { StoredObject } from "../store/resource-store.js";
import { type RequestContext, titleInSentence } from "./context.js";
import { emitEvent } from "./events.js";
import type { Body, CreateResult, KindHooks } from "./hooks.js";
import { hooksFor } from "./kinds/index.js";
import { assertNotInUse, checkReferences } from "./references.js";
import { render } from "./render.js";

/**
 * The role rule of docs/server.md > Accounts and roles, the one check of every write (collections,
 * routes, modules): an admin key changes and deletes anything of its account; another key only what
 * its user or bot owns (`owner_id`, else who created it). Fixtures have no creator: only admins change
 * them. What hangs under an edge (its routes, the modules of the edge and of its routes) is the edge's:
 * the edge's owner decides, whoever made the route or module (issue 31 §4).
 * @param obj the object changed or deleted, or the parent a new route or module goes under
 * @throws ApiProblem 403
 */
export function assertMayChange(obj: StoredObject, ctx: RequestContext): void {
  if (ctx.principal.admin) return;
  const owned = ownedObject(obj, ctx);
  const owner = typeof owned.body.owner_id === "string" ? owned.body.owner_id : owned.createdBy;
  if (owner !== ctx.principal.ownerId) {
    throw problems.notOwner(titleInSentence(getKind(owned.kind)), owned.id);
  }
}

/** The object whose owner decides for `obj`: its topmost parent (the edge of a route or module), else itself. */
function ownedObject(obj: StoredObject, ctx: RequestContext): StoredObject {
  let top = obj;
  for (let parent = top.parentId; parent !== null; parent = top.parentId) {
    const next = ctx.store.get(parent);
    if (next === undefined) break;
    top = next;
  }
  return top;
}

/** A list page: the objects and, when more follow, the id to pass as `before_id`. */
export interface Page<T> {
  items: T[];
  nextBeforeId?: string;
}

/**
 * The object `id` of `kind` (under `parentId` for nested kinds).
 * @throws ApiProblem 404 when it does not exist, is of another kind (wrong prefix), is malformed or
 *   belongs to another parent
 */
export function findObject(
  kind: KindDescriptor,
  id: string,
  ctx: RequestContext,
  parentId: string | null = null,
): StoredObject {
  const obj = isWellFormedId(id, kind.idPrefix ?? "") ? ctx.store.get(id) : undefined;
  if (obj === undefined || obj.kind !== kind.kind || obj.parentId !== parentId) {
    throw problems.notFound(titleInSentence(kind), id);
  }
  return obj;
}

/** The parent of a nested collection (a route's HTTPS edge), or null. @throws ApiProblem 404 */
export function findParent(
  kind: KindDescriptor,
  parentId: string | undefined,
  ctx: RequestContext,
): string | null {
  if (kind.parent === undefined) return null;
  return findObject(getKind(kind.parent), parentId ?? "", ctx).id;
}

/** The response body of an object, as GET returns it. */
export function show(kind: KindDescriptor, obj: StoredObject, ctx: RequestContext): Record<string, unknown> {
  return render(kind, obj, ctx, hooksFor(kind));
}

/** A created object and its create response (which alone may carry e.g. an API key token). */
export interface Created {
  obj: StoredObject;
  response: Record<string, unknown>;
}

/**
 * Creates an object from a validated create body. Synchronous unless the kind's create hook is (TLS,
 * SSH...): a promise per create of every other kind cost a microtask turn for nothing.
 * @param options `id`: a fixed id (fixtures); `parentId`: the parent of a nested kind (checked)
 * @returns the object created, or a promise of it for a kind whose create hook is asynchronous
 * @throws ApiProblem 403, 404 (a reference), 400 (the kind's rules); a promise rejects with these
 */
export function createObject(
  kind: KindDescriptor,
  input: Body,
  ctx: RequestContext,
  options: { id?: string; parentId?: string | null } = {},
): Created | Promise<Created> {
  const hooks = hooksFor(kind);
  hooks.authorize?.(ctx, "write");
  const parentId = options.parentId ?? null;
  // A route goes under an edge: adding one is a change of the edge.
  const parent = parentId === null ? undefined : ctx.store.get(parentId);
  if (parent !== undefined) assertMayChange(parent, ctx);
  applyOwner(kind, input, ctx);
  checkReferences(kind, input, ctx);
  const id = options.id ?? newId(kind.idPrefix ?? "");
  if (hooks.create === undefined) return storeCreated(kind, hooks, ctx, id, parentId, { body: input });
  const result = hooks.create(input, ctx, id);
  return result instanceof Promise
    ? result.then((r) => storeCreated(kind, hooks, ctx, id, parentId, r))
    : storeCreated(kind, hooks, ctx, id, parentId, result);
}

/** The writes of a create whose checks passed, then its event. */
function storeCreated(
  kind: KindDescriptor,
  hooks: KindHooks,
  ctx: RequestContext,
  id: string,
  parentId: string | null,
  result: CreateResult,
): Created {
  const write = result.write;
  // One insert is atomic by itself: a transaction only when the kind writes more (a token hash...).
  const obj =
    write === undefined
      ? ctx.store.insert(kind.kind, id, parentId, result.body)
      : ctx.store.transaction(() => {
          const stored = ctx.store.insert(kind.kind, id, parentId, result.body);
          write(stored);
          return stored;
        });
  const shown = render(kind, obj, ctx, hooks);
  if (ctx.emitEvents) emitEvent(ctx, kind, "created", shown);
  return { obj, response: result.response === undefined ? shown : { ...shown, ...result.response } };
}

/** Applies a validated PATCH body. @throws ApiProblem 404 (object or reference), 403, 400 */
export function updateObject(
  kind: KindDescriptor,
  id: string,
  patch: Body,
  ctx: RequestContext,
  parentId: string | null = null,
): Record<string, unknown> {
  const hooks = hooksFor(kind);
  hooks.authorize?.(ctx, "write");
  const current = findObject(kind, id, ctx, parentId);
  assertMayChange(current, ctx);
  checkReferences(kind, patch, ctx);
  const body = hooks.update ? hooks.update(current, patch, ctx) : { ...current.body, ...patch };
  const obj = ctx.store.update(id, body);
  const shown = render(kind, obj, ctx, hooks);
  if (ctx.emitEvents) emitEvent(ctx, kind, "updated", shown);
  return shown;
}

/**
 * Deletes an object and everything under it (an edge's routes and modules, a route's modules).
 * @throws ApiProblem 404, 403, 409 when another object still refers to it
 */
export function deleteObject(
  kind: KindDescriptor,
  id: string,
  ctx: RequestContext,
  parentId: string | null = null,
): void {
  const hooks = hooksFor(kind);
  hooks.authorize?.(ctx, "write");
  const obj = findObject(kind, id, ctx, parentId);
  assertMayChange(obj, ctx);
  const doomed = [obj, ...descendants(obj, ctx)];
  const ids = new Set(doomed.map((o) => o.id));
  for (const o of doomed) {
    const k = getKind(o.kind);
    hooksFor(k).beforeDelete?.(o, ctx);
    assertNotInUse(o, ctx, ids);
  }
  const shown = doomed.map((o) => ({ kind: getKind(o.kind), body: show(getKind(o.kind), o, ctx) }));
  ctx.store.transaction(() => {
    for (const o of [...doomed].reverse()) ctx.store.remove(o.id);
  });
  if (ctx.emitEvents) for (const s of shown) emitEvent(ctx, s.kind, "deleted", s.body);
}

/**
 * One page of a collection, newest first.
 * @param limit 1..100 (checked by the caller)
 * @param beforeId start after this id (deleted ids keep their place)
 * @throws ApiProblem 400 when `beforeId` was never in this list
 */
export function listObjects(
  kind: KindDescriptor,
  ctx: RequestContext,
  parentId: string | null,
  limit: number,
  beforeId?: string,
): Page<Record<string, unknown>> {
  hooksFor(kind).authorize?.(ctx, "read");
  let beforeSeq: number | undefined;
  if (beforeId !== undefined) {
    beforeSeq = ctx.store.seqOf(kind.kind, parentId, beforeId);
    if (beforeSeq === undefined) {
      throw problems.invalidQuery(`before_id: ${beforeId} is not the id of an item of this list`);
    }
  }
  const rows = ctx.store.page(kind.kind, parentId, limit + 1, beforeSeq);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map((o) => show(kind, o, ctx)),
    ...(rows.length > limit && last ? { nextBeforeId: last.id } : {}),
  };
}

/** Reads one object. @throws ApiProblem 404, 403 */
export function getObject(
  kind: KindDescriptor,
  id: string,
  ctx: RequestContext,
  parentId: string | null = null,
): Record<string, unknown> {
  hooksFor(kind).authorize?.(ctx, "read");
  return show(kind, findObject(kind, id, ctx, parentId), ctx);
}

/** Children, grandchildren... of an object, parents before their children. */
function descendants(obj: StoredObject, ctx: RequestContext): StoredObject[] {
  const out: StoredObject[] = [];
  for (const child of ctx.store.children(obj.id)) out.push(child, ...descendants(child, ctx));
  return out;
}

/**
 * docs/design.md section 5 > Auth: `owner_id` defaults to the caller's User or Bot; only an admin may
 * name someone else (403). Whether the owner exists is a reference check (404).
 */
function applyOwner(kind: KindDescriptor, input: Body, ctx: RequestContext): void {
  if (!kind.fields.some((f) => f.name === "owner_id")) return;
  const given = input.owner_id;
  if (given === undefined) {
    input.owner_id = ctx.principal.ownerId;
  } else if (given !== ctx.principal.ownerId && !ctx.principal.admin) {
    throw problems.ownerNotAllowed(String(given));
  }
}
