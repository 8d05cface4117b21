/**
 * Kind descriptors: what every other layer needs to know about a kind, derived from its schema
 * in `schemas/` and never written a second time.
 *
 * Derivation rules (documented in schemas/README.md):
 * - a field PATCH may change is a property of `$defs.update`;
 * - a field whose change forces a replace is a property of `$defs.create` absent from `$defs.update`;
 * - a module (`$defs.put`) changes every field with one PUT;
 * - `writeOnly`, `default`, `format: date-time` are standard keywords; `x-tgw` carries the rest
 *   (`ref`, `live`, `secret`, `unordered`, `normalize`, `metadata`, `hint`).
 */
import { inlineRefs, type JsonSchema, loadSchemaDocuments } from "./schema-files.js";

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

interface KindAnnotation {
  kind: string;
  collection?: string;
  path: string;
  listKey?: string;
  idPrefix?: string;
  operations: Operation[];
  module?: { parent: ModuleParent; configKey: string };
  referencedOnly?: boolean;
  parent?: string;
}

interface FieldAnnotation {
  ref?: string | string[];
  live?: string;
  secret?: boolean;
  unordered?: boolean;
  normalize?: Normalization;
  metadata?: boolean;
}

const props = (schema: JsonSchema | undefined): Record<string, JsonSchema> =>
  (schema?.properties as Record<string, JsonSchema> | undefined) ?? {};

function describe(doc: JsonSchema, referencedOnly: boolean): KindDescriptor {
  const ann = doc["x-tgw"] as KindAnnotation;
  const id = doc.$id as string;
  const defs = (doc.$defs ?? {}) as Record<string, JsonSchema>;
  const inlined = new Map<string, JsonSchema | undefined>();
  const def = (name: string): JsonSchema | undefined => {
    if (!inlined.has(name)) inlined.set(name, defs[name] ? inlineRefs(defs[name], id) : undefined);
    return inlined.get(name);
  };
  const request = def("put") ?? def("create");
  const update = def("update");
  const isModule = Boolean(defs.put);
  const required = new Set((request?.required as string[] | undefined) ?? []);

  const fields = Object.entries(props(request)).map(([name, schema]): FieldDescriptor => {
    const x = (schema["x-tgw"] ?? {}) as FieldAnnotation;
    const items = (schema.items ?? {}) as JsonSchema;
    const mutable = isModule || name in props(update);
    return {
      name,
      schema,
      required: required.has(name),
      mutable,
      forcesReplace: !mutable,
      writeOnly: schema.writeOnly === true,
      secret: x.secret === true,
      ...(x.ref ? { ref: Array.isArray(x.ref) ? x.ref : [x.ref] } : {}),
      ...(x.live ? { live: x.live } : {}),
      ...("default" in schema ? { default: schema.default } : {}),
      unordered: x.unordered === true,
      ...(x.normalize ? { normalize: x.normalize } : {}),
      isMetadata: x.metadata === true,
      dateTime: schema.format === "date-time" || items.format === "date-time",
    };
  });

  const metadataField = fields.find((f) => f.isMetadata)?.name;
  const secretPaths: string[][] = [];
  const seen = new Set<string>();
  const collect = (node: unknown, path: string[]) => {
    if (!node || typeof node !== "object") return;
    const n = node as JsonSchema;
    if ((n["x-tgw"] as FieldAnnotation | undefined)?.secret && !seen.has(path.join("."))) {
      seen.add(path.join("."));
      secretPaths.push(path);
    }
    for (const [k, v] of Object.entries(props(n))) collect(v, [...path, k]);
    if (n.items) collect(n.items, path);
  };
  for (const name of ["create", "update", "put", "response"]) collect(def(name), []);

  return {
    kind: ann.kind,
    title: doc.title as string,
    description: doc.description as string,
    schemaId: id,
    ...(ann.collection ? { collection: ann.collection } : {}),
    path: ann.path,
    ...(ann.listKey ? { listKey: ann.listKey } : {}),
    ...(ann.idPrefix ? { idPrefix: ann.idPrefix } : {}),
    operations: new Set(ann.operations),
    ...(ann.module ? { module: ann.module } : {}),
    referencedOnly,
    ...(ann.parent ? { parent: ann.parent } : {}),
    defs: new Set(Object.keys(defs).filter((k) => ["create", "update", "put", "response"].includes(k))),
    fields,
    secretPaths,
    ...(metadataField ? { metadataField } : {}),
  };
}

let registry: Map<string, KindDescriptor> | undefined;

/** Every kind (docs/api.md kinds first, then referenced-only objects), keyed by kind name. */
export function allKinds(): ReadonlyMap<string, KindDescriptor> {
  if (!registry) {
    const docs = loadSchemaDocuments();
    registry = new Map();
    for (const doc of docs.kinds) registry.set((doc["x-tgw"] as KindAnnotation).kind, describe(doc, false));
    for (const doc of docs.referenced)
      registry.set((doc["x-tgw"] as KindAnnotation).kind, describe(doc, true));
  }
  return registry;
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
