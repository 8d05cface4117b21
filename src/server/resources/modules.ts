/**
 * The operations on traffic modules (docs/api.md > Module operations), without HTTP. A module is a
 * singleton under its edge or route, so its identity is its path: it is stored with the id
 * `<kind>:<parent id>` and the parent as `parent_id`. PUT replaces it whole, GET of a module never set
 * is 404, DELETE removes it; the edge (and route) must exist (404). A module is its edge's: any key of
 * the account reads it, and only who may change the edge puts or deletes it (./service.ts >
 * assertMayChange).
 */
import { getKind, type KindDescriptor } from "../../model/index.js";
import { problems } from "../errors.js";
import type { StoredObject } from "../store/resource-store.js";
import { type RequestContext, titleInSentence } from "./context.js";
import { emitEvent } from "./events.js";
import type { Body } from "./hooks.js";
import { hooksFor } from "./kinds/index.js";
import { checkReferences } from "./references.js";
import { render } from "./render.js";
import { assertMayChange, findObject } from "./service.js";

/** Path parameters of a module path: `{edge_id}` and, for route modules, `{route_id}`. */
export interface ModuleParams {
  edge_id: string;
  route_id?: string;
}

const moduleId = (kind: KindDescriptor, parent: StoredObject) => `${kind.kind}:${parent.id}`;

/** The edge or route a module hangs off. @throws ApiProblem 404 naming the missing edge or route */
export function findModuleParent(
  kind: KindDescriptor,
  params: ModuleParams,
  ctx: RequestContext,
): StoredObject {
  const parent = kind.module?.parent;
  if (parent === undefined) throw new Error(`${kind.kind} is not a module`);
  if (parent === "https_edge_route") {
    const edge = findObject(getKind("https_edge"), params.edge_id, ctx);
    return findObject(getKind(parent), params.route_id ?? "", ctx, edge.id);
  }
  return findObject(getKind(parent), params.edge_id, ctx);
}

/** Replaces (or first sets) a module from a validated put body; returns the module as GET shows it. */
export async function putModule(
  kind: KindDescriptor,
  parent: StoredObject,
  input: Body,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const hooks = hooksFor(kind);
  hooks.authorize?.(ctx, "write");
  // The module is its edge's: checked on the parent, so a first PUT is refused like a replace.
  assertMayChange(parent, ctx);
  checkReferences(kind, input, ctx);
  const id = moduleId(kind, parent);
  const current = ctx.store.get(id);
  const result = hooks.create ? await hooks.create(input, ctx, parent.id, current) : { body: input };
  // Read again after the await: a concurrent PUT may have set the module (or a DELETE removed it, or
  // the parent) meanwhile. The write itself is synchronous, so the last PUT wins whole.
  if (ctx.store.get(parent.id) === undefined)
    throw problems.notFound(titleInSentence(getKind(parent.kind)), parent.id);
  const existing = ctx.store.get(id);
  const obj =
    existing === undefined
      ? ctx.store.insert(kind.kind, id, parent.id, result.body)
      : ctx.store.update(id, result.body);
  const shown = render(kind, obj, ctx, hooks);
  if (ctx.emitEvents) emitEvent(ctx, kind, existing === undefined ? "created" : "updated", shown);
  return shown;
}

/** Reads a module. @throws ApiProblem 404 when it was never set (or was deleted) */
export function getModule(
  kind: KindDescriptor,
  parent: StoredObject,
  ctx: RequestContext,
  path: string,
): Record<string, unknown> {
  hooksFor(kind).authorize?.(ctx, "read");
  const obj = ctx.store.get(moduleId(kind, parent));
  if (obj === undefined) throw problems.moduleNotSet(kind.title, path);
  return render(kind, obj, ctx, hooksFor(kind));
}

/** Removes a module. @throws ApiProblem 404 when it is not set */
export function deleteModule(
  kind: KindDescriptor,
  parent: StoredObject,
  ctx: RequestContext,
  path: string,
): void {
  const shown = getModule(kind, parent, ctx, path);
  hooksFor(kind).authorize?.(ctx, "write");
  assertMayChange(parent, ctx);
  ctx.store.remove(moduleId(kind, parent));
  if (ctx.emitEvents) emitEvent(ctx, kind, "deleted", shown);
}
