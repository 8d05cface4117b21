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

/** A live field: the ids stored under `field` are shown as Ref objects under `key`. */
interface LiveField {
  field: string;
  key: string;
  list: boolean;
}

/** What rendering a kind needs, worked out once per kind (render runs for each item of a list). */
interface RenderPlan {
  keys: string[];
  live: LiveField[];
  nested: boolean;
}

const plans = new Map<string, RenderPlan>();

function planOf(kind: KindDescriptor): RenderPlan {
  let plan = plans.get(kind.kind);
  if (plan === undefined) {
    const live: LiveField[] = [];
    for (const field of kind.fields) {
      if (field.live === undefined) continue;
      const list = /^(\w+)\[\]\.id$/.exec(field.live)?.[1];
      const single = /^(\w+)\.id$/.exec(field.live)?.[1];
      if (list !== undefined) live.push({ field: field.name, key: list, list: true });
      else if (single !== undefined) live.push({ field: field.name, key: single, list: false });
    }
    plan = { keys: responseProperties(kind), live, nested: kind.parent !== undefined };
    plans.set(kind.kind, plan);
  }
  return plan;
}

/**
 * The response body of a stored object, as GET returns it. Each response property is taken from the
 * first source that has it, in this order: the `present` hook, the Ref form of a live field, the
 * parent id (`edge_id`), the stored body, then `id`, `uri` and `created_at`; undefined values are left
 * out.
 */
export function render(
  kind: KindDescriptor,
  obj: StoredObject,
  ctx: RequestContext,
  hooks: KindHooks,
): Record<string, unknown> {
  // Looked up first: only responses of cached objects are kept (below), and a list page reads 100.
  const hit = shownOf.get(obj);
  if (hit !== undefined && hit.base === ctx.baseUrl) return hit.shown;
  const plan = planOf(kind);
  const derived = hooks.present !== undefined && hooks.presentOfObjectAlone !== true;
  if (derived || plan.live.length > 0 || !Object.isFrozen(obj)) return build(plan, obj, ctx, hooks);
  // A frozen object comes from the store's cache and never changes; without a live field or a
  // `present` hook that reads more than the object, its response depends on it and the base URL
  // alone: made once, frozen, shared.
  const shown = Object.freeze(build(plan, obj, ctx, hooks));
  shownOf.set(obj, { base: ctx.baseUrl, shown });
  return shown;
}

// These caches stay (issue 28 §2): without them a list of 100 answers at 0.17-0.23x of bare Fastify
// against 0.36-0.38x (goal >= 0.3x), a GET at 0.63-0.83x against 0.88-0.94x (bench/README.md).
const shownOf = new WeakMap<StoredObject, { base: string; shown: Record<string, unknown> }>();
const jsonOf = new WeakMap<object, string>();
const bytesOf = new WeakMap<object, Buffer>();

/**
 * The JSON text of a response body (`JSON.stringify`), kept for a frozen one (see render). Text for
 * one object: Node sends a short string in the same write as the headers.
 */
export function responseJson(shown: Record<string, unknown>): string {
  if (!Object.isFrozen(shown)) return JSON.stringify(shown);
  let json = jsonOf.get(shown);
  if (json === undefined) {
    json = JSON.stringify(shown);
    jsonOf.set(shown, json);
  }
  return json;
}

/**
 * The UTF-8 bytes of a response body's JSON text, kept for a frozen one (see render): a list page
 * read again is mostly the same objects, and serialising them was much of its time. Bytes rather
 * than text for the items of a list: the page is sent as one Buffer joined from them, which Node
 * writes as is, where a string is measured for its length and encoded on every answer.
 */
export function responseBytes(shown: Record<string, unknown>): Buffer {
  if (!Object.isFrozen(shown)) return Buffer.from(JSON.stringify(shown));
  let bytes = bytesOf.get(shown);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(shown));
    bytesOf.set(shown, bytes);
  }
  return bytes;
}

function build(
  plan: RenderPlan,
  obj: StoredObject,
  ctx: RequestContext,
  hooks: KindHooks,
): Record<string, unknown> {
  const body = obj.body;
  const live: Record<string, unknown> | undefined = plan.live.length === 0 ? undefined : {};
  for (const { field, key, list } of plan.live) {
    const value = body[field];
    if (live === undefined) break;
    if (list && Array.isArray(value)) live[key] = value.map((id) => refTo(ctx, String(id)));
    else if (!list && typeof value === "string") live[key] = refTo(ctx, value);
  }
  const presented = hooks.present?.(obj, ctx);
  const out: Record<string, unknown> = {};
  for (const key of plan.keys) {
    let value: unknown;
    if (presented !== undefined && Object.hasOwn(presented, key)) value = presented[key];
    else if (live !== undefined && Object.hasOwn(live, key)) value = live[key];
    else if (plan.nested && key === "edge_id") value = obj.parentId;
    else if (Object.hasOwn(body, key)) value = body[key];
    else if (key === "id") value = obj.id;
    else if (key === "uri") value = uriOfObject(ctx, obj);
    else if (key === "created_at") value = obj.createdAt;
    if (value !== undefined) out[key] = value;
  }
  return out;
}
