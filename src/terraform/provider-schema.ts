/**
 * The Terraform provider schema of `tunnelgw`, derived from the kind descriptors of `src/model`
 * (and so from `schemas/`) in the shape `terraform providers schema -json` prints. `npm run gen`
 * writes it to ./provider-schema.gen.json; the CDKTF bindings (`@tunnelgw/cdktf`) are generated from
 * that file, and the Terraform provider serves the same schema. docs/cdktf.md explains the choices.
 *
 * Rules (a field list is never written here):
 * - one resource type per desired-state kind: `tunnelgw_<kind>` for collections
 *   (`tunnelgw_api_key`), `tunnelgw_<parent>_<module>` for modules (`tunnelgw_https_edge_route_oidc`,
 *   `tunnelgw_tls_edge_backend`); modules take their parent ids (`edge_id`, and `route_id` on
 *   routes) as required attributes and have a computed `id` built from them (the names and parent
 *   ids are src/model/terraform-names.ts, which the CDKTF source reads too);
 * - data sources: one lookup by `id` per referenced-only object (`tunnelgw_ip_policy`,
 *   `tunnelgw_https_edge_route` with `edge_id`...), one per managed kind, named as its resource type
 *   (by `id`, or a module by its parent ids), and one list per kind the API lists, named in the
 *   plural (`tunnelgw_api_keys`, `tunnelgw_https_edge_routes` with `edge_id`, `tunnelgw_endpoints`):
 *   optional exact-match filters (`description`, `metadata`, where the kind's response has them),
 *   the computed `ids` and a list of the objects (`api_keys`) with the by-id data source's values;
 * - scalars map to `string` / `bool` / `number`; arrays to `list`, or `set` when the schema marks
 *   them `unordered`; objects and arrays of objects in requests to nested attributes
 *   (`single` / `list` / `set`); `additionalProperties` to `map`; response-only values to type
 *   expressions (`object`, `list(object)`);
 * - required create fields are `required`; a field with a server default, or that the response
 *   always returns, is `optional` + `computed`; response-only fields are `computed`;
 * - secret fields are `sensitive`; write-only inputs (`private_key_pem`) are also `write_only`;
 * - `requires_replace: true` marks a field whose change replaces the object (a create field that
 *   PATCH cannot change, and a module's parent ids). Terraform's own JSON has no such key: it is
 *   this project's extension, ignored by the CDKTF generator and turned into a replace plan
 *   modifier by the Terraform provider.
 * - `tgw`-only settings: the provider's `ownership` and `stack`, the API key's `token_file`
 *   (a Terraform provider accepts them; see docs/cdktf.md > What only tgw reads).
 */
import { readFileSync } from "node:fs";
import {
  allKinds,
  inlineRefs,
  type JsonSchema,
  type KindDescriptor,
  loadSchemaDocuments,
} from "../model/index.js";
import {
  desiredKinds,
  LIST_FILTERS,
  listDataSourceType,
  listedKinds,
  listPathParams,
  moduleParams,
  PROVIDER_NAME,
  pluralName,
  resourceType,
} from "../model/terraform-names.js";
import { returnsToken } from "../model/token-file.js";
import { noun } from "../model/words.js";

/** Fully qualified provider address (the key of `provider_schemas`). */
export const PROVIDER_SOURCE = "registry.terraform.io/tunnelgw/tunnelgw";

/** A Terraform type expression (`"string"`, `["list", "string"]`, `["object", {...}]`). */
export type TerraformType =
  | "string"
  | "bool"
  | "number"
  | [string, TerraformType | Record<string, TerraformType>];

/** One attribute of a block (a subset of Terraform's JSON schema plus `requires_replace`). */
export interface TerraformAttribute {
  type?: TerraformType;
  nested_type?: { attributes: Record<string, TerraformAttribute>; nesting_mode: "single" | "list" | "set" };
  description?: string;
  description_kind?: "plain";
  required?: true;
  optional?: true;
  computed?: true;
  sensitive?: true;
  write_only?: true;
  /** tunnelgw extension: a change replaces the object. */
  requires_replace?: true;
}

/** A resource, data source or provider schema. */
export interface TerraformSchema {
  version: 0;
  block: { attributes: Record<string, TerraformAttribute>; description: string; description_kind: "plain" };
}

/** The whole document, as `terraform providers schema -json` prints it. */
export interface ProviderSchemaDocument {
  format_version: "1.0";
  provider_schemas: Record<
    string,
    {
      provider: TerraformSchema;
      resource_schemas: Record<string, TerraformSchema>;
      data_source_schemas: Record<string, TerraformSchema>;
    }
  >;
  provider_versions: Record<string, string>;
}

/** The package version (package.json), which is the provider version. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Descriptions for users: without the cross-references to this project's design documents. */
const forUsers = (text: string): string =>
  text
    .split(/(?<=\.)\s+/)
    .filter((sentence) => !/SPEC\.md|DECISIONS\.md/.test(sentence))
    .join(" ");
const plain = (description: string) => ({
  description: forUsers(description),
  description_kind: "plain" as const,
});
const props = (s: JsonSchema | undefined): Record<string, JsonSchema> =>
  (s?.properties as Record<string, JsonSchema> | undefined) ?? {};
const requiredOf = (s: JsonSchema | undefined): Set<string> => new Set((s?.required as string[]) ?? []);
const xtgw = (s: JsonSchema): Record<string, unknown> => (s["x-tgw"] as Record<string, unknown>) ?? {};
const types = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : [s.type]) as string[];
const has = (s: JsonSchema, t: string) => types(s).includes(t);
const describe = (s: JsonSchema): { description?: string; description_kind?: "plain" } => {
  const text = typeof s.description === "string" ? forUsers(s.description) : "";
  return text ? { description: text, description_kind: "plain" } : {};
};

/** The type expression of a value read from the API (response-only and data source attributes). */
function typeOf(s: JsonSchema): TerraformType {
  if (has(s, "boolean")) return "bool";
  if (has(s, "integer") || has(s, "number")) return "number";
  if (has(s, "array")) {
    const items = (s.items ?? {}) as JsonSchema;
    return [xtgw(s).unordered ? "set" : "list", typeOf(items)];
  }
  if (has(s, "object")) {
    if (s.properties) {
      return ["object", Object.fromEntries(Object.entries(props(s)).map(([k, v]) => [k, typeOf(v)]))];
    }
    const ap = s.additionalProperties;
    return ["map", typeof ap === "object" ? typeOf(ap as JsonSchema) : "string"];
  }
  return "string";
}

/** An input attribute: nested attributes for objects (and lists of objects), a type otherwise. */
function inputAttribute(s: JsonSchema, required: boolean): TerraformAttribute {
  const base: TerraformAttribute = {
    ...describe(s),
    ...(required ? { required: true } : { optional: true }),
    ...(!required && "default" in s ? { computed: true } : {}),
    ...(xtgw(s).secret === true || s.writeOnly === true ? { sensitive: true } : {}),
    ...(s.writeOnly === true ? { write_only: true } : {}),
  };
  const nested = (node: JsonSchema) => {
    const req = requiredOf(node);
    return Object.fromEntries(
      Object.entries(props(node)).map(([k, v]) => [k, inputAttribute(v, req.has(k))]),
    );
  };
  if (has(s, "object") && s.properties) {
    return { nested_type: { attributes: nested(s), nesting_mode: "single" }, ...base };
  }
  const items = (s.items ?? {}) as JsonSchema;
  if (has(s, "array") && has(items, "object") && items.properties) {
    return {
      nested_type: { attributes: nested(items), nesting_mode: xtgw(s).unordered ? "set" : "list" },
      ...base,
    };
  }
  return { type: typeOf(s), ...base };
}

/**
 * A computed attribute read from the API. Without a description of its own it takes that of the
 * kind's request field of the same name (`request`): a response repeats those fields undescribed.
 */
function computedAttribute(s: JsonSchema, request?: JsonSchema): TerraformAttribute {
  return {
    type: typeOf(s),
    ...(describe(s).description || !request ? describe(s) : describe(request)),
    computed: true,
    ...(xtgw(s).secret === true ? { sensitive: true } : {}),
  };
}

/** The response schema of a kind (`$defs.response`, refs inlined). */
function responseOf(kind: KindDescriptor): JsonSchema | undefined {
  const doc = loadSchemaDocuments().byId.get(kind.schemaId);
  const response = (doc?.$defs as Record<string, JsonSchema> | undefined)?.response;
  return response ? inlineRefs(response, kind.schemaId) : undefined;
}

/** The schema of the resource type of one desired-state kind. */
function resourceSchema(kind: KindDescriptor): TerraformSchema {
  const response = responseOf(kind);
  const responseProps = props(response);
  const responseRequired = requiredOf(response);
  const attributes: Record<string, TerraformAttribute> = {
    id: {
      type: "string",
      ...plain(
        kind.module
          ? `Identity of the module: its API path, ${kind.path.replace(/\{(\w+)\}/g, "<$1>")} (also the id terraform import takes).`
          : `Server-assigned id (${kind.idPrefix ?? ""}...).`,
      ),
      computed: true,
    },
  };
  for (const p of moduleParams(kind)) {
    attributes[p.name] = {
      type: "string",
      ...plain(`Id of the ${p.kind.title} the module is set on. Changing it replaces the module.`),
      required: true,
      requires_replace: true,
    };
  }
  for (const f of kind.fields) {
    const attr = inputAttribute(f.schema, f.required);
    if (!f.required && !f.writeOnly && responseRequired.has(f.name) && f.name in responseProps) {
      attr.computed = true;
    }
    if (f.forcesReplace) {
      attr.requires_replace = true;
      attr.description = [attr.description, "Changing it replaces the resource."].filter(Boolean).join(" ");
      attr.description_kind = "plain";
    }
    attributes[f.name] = attr;
  }
  const inputs = new Set(kind.fields.map((f) => f.name));
  for (const [name, s] of Object.entries(responseProps)) {
    if (name === "id" || inputs.has(name)) continue;
    attributes[name] = computedAttribute(s);
  }
  if (kind.kind === "api_key") {
    attributes.token_file = {
      type: "string",
      ...plain(
        "tgw only (the Terraform provider accepts and ignores it): where tgw writes the token returned at creation, mode 0600, relative to the CDKTF project directory. Default: .tgw/secrets/<logical id>.token.",
      ),
      optional: true,
    };
  }
  return { version: 0, block: { attributes, ...plain(kind.description) } };
}

/** A lookup by id of a referenced-only object (edges, routes, CAs, IP policies...). */
function lookupSchema(kind: KindDescriptor): TerraformSchema {
  const attributes: Record<string, TerraformAttribute> = {
    id: { type: "string", ...plain(`Id of the ${kind.title} (${kind.idPrefix ?? ""}...).`), required: true },
  };
  if (kind.parent) {
    attributes.edge_id = {
      type: "string",
      ...plain(`Id of the ${allKinds().get(kind.parent)?.title ?? kind.parent} it belongs to.`),
      required: true,
    };
  }
  return withResponse(kind, attributes);
}

/** A data source's schema: `args`, then every value of the kind's response, computed. */
function withResponse(kind: KindDescriptor, args: Record<string, TerraformAttribute>): TerraformSchema {
  const attributes = { ...args };
  for (const [name, s] of Object.entries(props(responseOf(kind)))) {
    // The token only a create's answer holds: a read never has it.
    if (name in attributes || (name === "token" && returnsToken(kind.kind))) continue;
    attributes[name] = computedAttribute(s, kind.fields.find((f) => f.name === name)?.schema);
  }
  return { version: 0, block: { attributes, ...plain(kind.description) } };
}

/** A module read by its parent ids: every value of its response, computed. */
function moduleLookupSchema(kind: KindDescriptor): TerraformSchema {
  const attributes: Record<string, TerraformAttribute> = {
    id: {
      type: "string",
      ...plain(`The module's API path, ${kind.path.replace(/\{(\w+)\}/g, "<$1>")}.`),
      computed: true,
    },
  };
  for (const p of moduleParams(kind)) {
    attributes[p.name] = {
      type: "string",
      ...plain(`Id of the ${p.kind.title} the module is set on.`),
      required: true,
    };
  }
  return withResponse(kind, attributes);
}

const FILTER_DESCRIPTIONS: Record<(typeof LIST_FILTERS)[number], string> = {
  description: "Keep only the objects whose description is exactly this text.",
  metadata:
    "Keep only the objects whose metadata equals this: the user's part, without tgw's ownership marker, compared as the resources compare it (JSON as data: key order and spacing do not matter; write jsonencode({...})).",
};

/**
 * The list data source of a kind the API lists (`tunnelgw_api_keys`): the parent ids of a nested
 * collection (`edge_id` of an edge's routes) as required arguments, the optional filters the kind's
 * response has (`description`, `metadata`: exact matches, all of them must hold), the ids listed and
 * every listed object with the attributes of the kind's data source by id, all computed.
 */
function listSchema(kind: KindDescriptor): TerraformSchema {
  const plural = pluralName(kind);
  const parent = kind.parent ? allKinds().get(kind.parent) : undefined;
  const attributes: Record<string, TerraformAttribute> = {
    id: { type: "string", ...plain(`Always \`${plural}\`.`), computed: true },
  };
  for (const name of listPathParams(kind)) {
    attributes[name] = {
      type: "string",
      ...plain(`Id of the ${parent?.title ?? kind.parent} whose objects are listed.`),
      required: true,
    };
  }
  const response = props(responseOf(kind));
  for (const name of LIST_FILTERS) {
    if (name in response)
      attributes[name] = { type: "string", ...plain(FILTER_DESCRIPTIONS[name]), optional: true };
  }
  attributes.ids = {
    type: ["list", "string"],
    ...plain(
      `Ids of the objects listed (${kind.idPrefix ?? ""}...), in the order of \`${plural}\`; an empty list when none matches.`,
    ),
    computed: true,
  };
  const item = Object.fromEntries(
    Object.entries(lookupSchema(kind).block.attributes).map(([name, a]) => {
      const { required: _, ...rest } = a;
      return [name, { ...rest, computed: true as const }];
    }),
  );
  attributes[plural] = {
    nested_type: { attributes: item, nesting_mode: "list" },
    ...plain(
      `Every object listed that matches the filters, in the order the API lists them (an empty list when none does), with every value the API returns (of metadata, the user's part; never a token, which only a create returns).`,
    ),
    computed: true,
  };
  const where = parent ? ` of one ${parent.title}` : "";
  return {
    version: 0,
    block: {
      attributes,
      ...plain(
        `The list of every ${noun(kind.title)}${where} the API returns, narrowed by the optional filters. ${kind.description}`,
      ),
    },
  };
}

function providerBlock(): TerraformSchema {
  return {
    version: 0,
    block: {
      attributes: {
        api_url: {
          type: "string",
          ...plain(
            "Base URL of the Tunnel Gateway Management API. Default: the TGW_API_URL environment variable.",
          ),
          optional: true,
        },
        api_key: {
          type: "string",
          ...plain("API key for the Management API. Default: the TGW_API_KEY environment variable."),
          optional: true,
          sensitive: true,
        },
        stack: {
          type: "string",
          ...plain(
            "Ownership scope. Terraform writes terraform:<stack>/<workspace> into the marker of each object it creates, to find an object whose create never reached its state; default: the working directory's name and 8 hex digits of the SHA-256 of its absolute path. Set a name unique per Terraform state when one configuration is applied from several machines or paths. tgw names a synthesized CDKTF stack after it (default: the CDKTF stack's name).",
          ),
          optional: true,
        },
        ownership: {
          type: "string",
          ...plain(
            '"marker" (default): an ownership marker is written into metadata at creation; "state-only": the state alone records what is managed.',
          ),
          optional: true,
        },
      },
      ...plain("The Tunnel Gateway Management API, reconciled by tgw or by Terraform."),
    },
  };
}

/**
 * The provider schema document of `tunnelgw`.
 * @param version the provider version recorded in `provider_versions` (default: package.json's)
 */
export function buildProviderSchema(version: string = packageVersion()): ProviderSchemaDocument {
  const resource_schemas: Record<string, TerraformSchema> = {};
  for (const kind of desiredKinds()) resource_schemas[resourceType(kind)] = resourceSchema(kind);
  const data_source_schemas: Record<string, TerraformSchema> = {};
  // A list data source for every kind the API lists, named in the plural (`tunnelgw_api_keys`).
  for (const kind of listedKinds()) data_source_schemas[listDataSourceType(kind)] = listSchema(kind);
  for (const kind of allKinds().values()) {
    if (kind.referencedOnly) data_source_schemas[`${PROVIDER_NAME}_${kind.kind}`] = lookupSchema(kind);
  }
  // A data source for every managed kind too, named as its resource type: an object by id, a module
  // by its parent ids (issue 27 §2.6).
  for (const kind of desiredKinds()) {
    data_source_schemas[resourceType(kind)] = kind.module ? moduleLookupSchema(kind) : lookupSchema(kind);
  }
  return {
    format_version: "1.0",
    provider_schemas: {
      [PROVIDER_SOURCE]: { provider: providerBlock(), resource_schemas, data_source_schemas },
    },
    provider_versions: { [PROVIDER_SOURCE]: version },
  };
}
