/**
 * Stored object -> response body, for every kind, from the model:
 * - `id`, `uri` (full URL), `created_at` come from the store;
 * - a field whose response form differs (`x-tgw.live`: `backend.id`, `ip_policies[].id`) is turned
 *   from ids into Ref objects `{id, uri}`;
 * - a nested collection's objects name their parent (`edge_id` of a route);
 * - the kind's `present` hook adds what is derived at read time;
 * - then only the properties of `$defs.response` are kept, in schema order. This is what keeps
 *   write-only and server-side data (private keys, token hashes, flags) out of every response.
 */
import { type KindDescriptor, loadSchemaDocuments } from "../../model/index.js";
import type { StoredObject } from "../store/resource-store.js";
import { type RequestContext, refTo, uriOfObject } from "./context.js";
import type { KindHooks } from "./hooks.js";

const responseKeys = new Map<string, string[]>();

/** The property names of a kind's `$defs.response`, in schema order. */
export function responseProperties(kind: KindDescriptor): string[] {
  let keys = responseKeys.get(kind.kind);
  if (keys === undefined) {
    const doc = loadSchemaDocuments().byId.get(kind.schemaId);
    const response = (doc?.$defs as Record<string, { properties?: object }> | undefined)?.response;
    keys = Object.keys(response?.properties ?? {});
    responseKeys.set(kind.kind, keys);
  }
  return keys;
}

/** The response body of a stored object, as GET returns it. */
export function render(
  kind: KindDescriptor,
  obj: StoredObject,
  ctx: RequestContext,
  hooks: KindHooks,
): Record<string, unknown> {
  const full: Record<string, unknown> = {
    id: obj.id,
    uri: uriOfObject(ctx, obj),
    created_at: obj.createdAt,
    ...obj.body,
  };
  if (kind.parent !== undefined) full.edge_id = obj.parentId;
  for (const field of kind.fields) {
    if (field.live === undefined) continue;
    const value = obj.body[field.name];
    const list = /^(\w+)\[\]\.id$/.exec(field.live);
    const single = /^(\w+)\.id$/.exec(field.live);
    if (list?.[1] && Array.isArray(value)) full[list[1]] = value.map((id) => refTo(ctx, String(id)));
    else if (single?.[1] && typeof value === "string") full[single[1]] = refTo(ctx, value);
  }
  if (hooks.present) Object.assign(full, hooks.present(obj, ctx));
  const out: Record<string, unknown> = {};
  for (const key of responseProperties(kind)) if (full[key] !== undefined) out[key] = full[key];
  return out;
}
