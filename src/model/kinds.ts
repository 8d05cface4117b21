/**
 * Kind descriptors: what every other layer needs to know about a kind, derived from its schema
 * in `schemas/` (./kinds-derive.ts, rules in schemas/README.md) and never written a second time.
 * A run reads them from ./kinds.gen.ts, which `npm run gen` writes and test/model/kinds-gen.test.ts
 * keeps current.
 */
import { KIND_DATA } from "./kinds.gen.js";
import type { JsonSchema } from "./schema-files.js";

/** An operation of the API on a kind. */
export type Operation = "create" | "list" | "get" | "update" | "delete" | "put";

/** The objects a module hangs off (docs/api.md > Module operations). */
export type ModuleParent = "https_edge_route" | "https_edge" | "tls_edge" | "tcp_edge";

/** Field-value normalisations applied to both desired and live values before a diff. */
export type Normalization = "trim" | "lowercase" | "lowercase-keys";

/** One top-level field of a kind's create (or module put) request. */
export interface FieldDescriptor {
  name: string;
  /** The property schema with every `$ref` inlined. */
  schema: JsonSchema;
  required: boolean;
  /** PATCH (or, for modules, PUT) can change it in place. */
  mutable: boolean;
  /** A change needs a new resource (create + delete). */
  forcesReplace: boolean;
  /** Accepted in requests, never returned (e.g. private_key_pem): compared by fingerprint. */
  writeOnly: boolean;
  /** Masked in plan output and logs (docs/design.md section 3.4). */
  secret: boolean;
  /** Kinds whose ids this field (or its items) holds. */
  ref?: string[];
  /** Where the value is in the response when it differs from the request, e.g. `backend.id` or `ip_policies[].id`. */
  live?: string;
  /**
   * Response-only fields whose value the server derives from this field (the root of `live`, e.g.
   * `backend`, and `x-tgw.determines`, e.g. a backend's `tunnels` from its `labels`): they change
   * when this field does.
   */
  determines?: string[];
  /** The value the server applies when the field is omitted. */
  default?: unknown;
  /** A list whose order the API does not keep. */
  unordered: boolean;
  normalize?: Normalization;
  /** The field carries the ownership marker (docs/design.md section 3.1). */
  isMetadata: boolean;
  /** RFC 3339 timestamp: compared as instants. */
  dateTime: boolean;
}

/** Everything the project knows about one kind, from its schema. */
export interface KindDescriptor {
  /** e.g. `api_key`, `saml`, `https_edge`. */
  kind: string;
  title: string;
  description: string;
  /** `$id` of the schema document; `${schemaId}#/$defs/create` addresses the create schema in Ajv. */
  schemaId: string;
  /** Config collection (`api_keys`); absent for modules and kinds that are not desired state. */
  collection?: string;
  /** API path of the collection, or the module path template with `{edge_id}` / `{route_id}`. */
  path: string;
  /** Key of the list in the list envelope (`keys` for API keys). */
  listKey?: string;
  idPrefix?: string;
  operations: ReadonlySet<Operation>;
  module?: { parent: ModuleParent; configKey: string };
  /** Only referenced by id in docs/api.md; the reference server keeps a minimal CRUD. */
  referencedOnly: boolean;
  /** For nested collections (routes): the kind of the parent object in the path. */
  parent?: string;
  /** Which `$defs` entries exist: `create`, `update`, `put`, `response`. */
  defs: ReadonlySet<string>;
  /** Fields of the create (or put) request, in schema order. */
  fields: FieldDescriptor[];
  /** Paths (property names) to every secret value in requests and responses, nested included. */
  secretPaths: string[][];
  /** The field that carries the ownership marker (`x-tgw.metadata`), if the kind has one. */
  metadataField?: string;
}

/**
 * A kind descriptor as plain data (sets as arrays): the form of ./kinds.gen.ts, which `npm run gen`
 * derives from `schemas/` (./kinds-derive.ts), so that a run does not read and resolve every schema
 * at start-up (issue 13).
 */
export type KindData = Omit<KindDescriptor, "operations" | "defs"> & {
  operations: Operation[];
  defs: string[];
};

let registry: Map<string, KindDescriptor> | undefined;

/** Every kind (docs/api.md kinds first, then referenced-only objects), keyed by kind name. */
export function allKinds(): ReadonlyMap<string, KindDescriptor> {
  registry ??= kindMap(KIND_DATA);
  return registry;
}

/**
 * Makes `kinds` the descriptors every later call sees, instead of ./kinds.gen.ts: for `npm run gen`,
 * which derives them from `schemas/` as they are now (the generated file may be the stale one).
 */
export function useKinds(kinds: readonly KindData[]): void {
  registry = kindMap(kinds);
}

function kindMap(kinds: readonly KindData[]): Map<string, KindDescriptor> {
  return new Map(
    kinds.map((k) => [k.kind, { ...k, operations: new Set(k.operations), defs: new Set(k.defs) }]),
  );
}

/**
 * The descriptor of one kind.
 * @throws Error if no schema declares that kind (a programming error, not user input).
 */
export function getKind(kind: string): KindDescriptor {
  const k = allKinds().get(kind);
  if (!k) throw new Error(`unknown kind ${kind}`);
  return k;
}

/**
 * The fields of `kind` that `keep` accepts, found once per kind and predicate: rules and the planner
 * look at thousands of objects of a few kinds. `keep` must be a constant (its identity is the cache's key).
 */
export function fieldsWhere(
  kind: KindDescriptor,
  keep: (field: FieldDescriptor) => boolean,
): readonly FieldDescriptor[] {
  let byKind = fieldCache.get(keep);
  if (byKind === undefined) {
    byKind = new WeakMap();
    fieldCache.set(keep, byKind);
  }
  let fields = byKind.get(kind);
  if (fields === undefined) {
    fields = kind.fields.filter(keep);
    byKind.set(kind, fields);
  }
  return fields;
}

const fieldCache = new WeakMap<
  (field: FieldDescriptor) => boolean,
  WeakMap<KindDescriptor, readonly FieldDescriptor[]>
>();

/** The 19 kinds of docs/api.md (10 resources and 9 modules). */
export function specKinds(): KindDescriptor[] {
  return [...allKinds().values()].filter((k) => !k.referencedOnly);
}

/** Kinds that are configuration collections (`api_keys`, ...), keyed by collection name. */
export function collections(): ReadonlyMap<string, KindDescriptor> {
  return new Map(specKinds().flatMap((k) => (k.collection ? [[k.collection, k] as const] : [])));
}

/** The nine module kinds. */
export function moduleKinds(): KindDescriptor[] {
  return specKinds().filter((k) => k.module);
}

/** The kind whose ids start with `prefix` + `_` rest, e.g. `kindOfId("ak_123")` is the API key. */
export function kindOfId(id: string): KindDescriptor | undefined {
  for (const k of allKinds().values()) if (k.idPrefix && id.startsWith(k.idPrefix)) return k;
  return undefined;
}

/** Fills a module or collection path template: `modulePath(saml, {edge_id, route_id})`. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path ${template} needs ${name}`);
    return encodeURIComponent(value);
  });
}
