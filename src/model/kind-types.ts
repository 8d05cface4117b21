/**
 * The shapes of kind descriptors (./kinds.ts): their own module so that the generated data
 * (./kinds.gen.ts) and its deriving (./kinds-derive.ts) name them without importing the registry.
 */
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
 * at start-up.
 */
export type KindData = Omit<KindDescriptor, "operations" | "defs"> & {
  operations: Operation[];
  defs: string[];
};
