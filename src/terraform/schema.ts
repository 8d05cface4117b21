/**
 * The provider schema as the provider serves it. The schema itself is generated once from `schemas/`
 * (`npm run gen` writes ./provider-schema.gen.json through `buildProviderSchema()` in
 * ./provider-schema.ts, in the format of `terraform providers schema -json`); this module only reads that
 * file and converts it to protocol-6 messages and cty types. Resource type names map to kinds through
 * `resourceType()` of src/model/terraform-names.ts; the kind descriptor (src/model) says everything else.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CtyType } from "./cty.js";

/** An attribute in `terraform providers schema -json` form. */
export interface JsonAttribute {
  type?: CtyType;
  nested_type?: {
    attributes: Record<string, JsonAttribute>;
    nesting_mode: "single" | "list" | "set" | "map";
  };
  description?: string;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  write_only?: boolean;
  deprecated?: boolean;
}

/** A block in `terraform providers schema -json` form. */
export interface JsonBlock {
  attributes?: Record<string, JsonAttribute>;
  block_types?: Record<
    string,
    {
      nesting_mode: "single" | "list" | "set" | "map" | "group";
      block: JsonBlock;
      min_items?: number;
      max_items?: number;
    }
  >;
  description?: string;
}

/** One schema (provider, resource or data source). */
export interface JsonSchemaEntry {
  version: number;
  block: JsonBlock;
}

/** The provider's schemas. */
export interface ProviderSchema {
  /** e.g. `registry.terraform.io/tunnelgw/tunnelgw`. */
  source: string;
  version: string;
  provider: JsonSchemaEntry;
  resources: Record<string, JsonSchemaEntry>;
  dataSources: Record<string, JsonSchemaEntry>;
}

/** The file `npm run gen` writes. */
export const SCHEMA_FILE = fileURLToPath(new URL("./provider-schema.gen.json", import.meta.url));

let cached: ProviderSchema | undefined;

/**
 * Reads the generated provider schema (from src/terraform, or next to dist/terraform when built).
 * @throws Error when the file is missing or holds no provider.
 */
export function loadProviderSchema(file = SCHEMA_FILE): ProviderSchema {
  if (cached && file === SCHEMA_FILE) return cached;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = readFileSync(
      fileURLToPath(new URL("../../src/terraform/provider-schema.gen.json", import.meta.url)),
      "utf8",
    );
  }
  const schema = parseProviderSchema(text, file);
  if (file === SCHEMA_FILE) cached = schema;
  return schema;
}

/**
 * The provider schema in `text` (the JSON of `terraform providers schema -json`); `file` names it in
 * errors.
 * @throws Error when it holds no provider (or is not JSON).
 */
export function parseProviderSchema(text: string, file = "provider schema"): ProviderSchema {
  const doc = JSON.parse(text) as {
    provider_schemas: Record<
      string,
      {
        provider: JsonSchemaEntry;
        resource_schemas?: Record<string, JsonSchemaEntry>;
        data_source_schemas?: Record<string, JsonSchemaEntry>;
      }
    >;
    provider_versions?: Record<string, string>;
  };
  const [source, entry] = Object.entries(doc.provider_schemas)[0] ?? [];
  if (!source || !entry) throw new Error(`${file}: no provider schema`);
  return {
    source,
    version: doc.provider_versions?.[source] ?? "0.0.0",
    provider: entry.provider,
    resources: entry.resource_schemas ?? {},
    dataSources: entry.data_source_schemas ?? {},
  };
}

/** The cty object type of a block's values. */
export function blockType(block: JsonBlock): CtyType {
  const attrs: Record<string, CtyType> = {};
  for (const [name, a] of Object.entries(block.attributes ?? {})) attrs[name] = attributeType(a);
  for (const [name, b] of Object.entries(block.block_types ?? {})) {
    const inner = blockType(b.block);
    attrs[name] =
      b.nesting_mode === "single" || b.nesting_mode === "group"
        ? inner
        : [asCollection(b.nesting_mode), inner];
  }
  return ["object", attrs];
}

/** The cty type of one attribute (a nested attribute's object type wrapped by its nesting). */
export function attributeType(a: JsonAttribute): CtyType {
  if (a.type !== undefined) return a.type;
  if (!a.nested_type) return "dynamic";
  const inner = blockType({ attributes: a.nested_type.attributes });
  return a.nested_type.nesting_mode === "single" ? inner : [asCollection(a.nested_type.nesting_mode), inner];
}

function asCollection(mode: string): "list" | "set" | "map" {
  return mode === "set" ? "set" : mode === "map" ? "map" : "list";
}

/** The protocol-6 `GetProviderSchema` response for `schema`. */
export function schemaResponse(schema: ProviderSchema): Record<string, unknown> {
  const map = (entries: Record<string, JsonSchemaEntry>) =>
    Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, toProtoSchema(v)]));
  return {
    provider: toProtoSchema(schema.provider),
    resource_schemas: map(schema.resources),
    data_source_schemas: map(schema.dataSources),
    diagnostics: [],
    server_capabilities: { plan_destroy: false, get_provider_schema_optional: false },
  };
}

/** A protocol-6 `Schema` message for one entry. */
export function toProtoSchema(entry: JsonSchemaEntry): object {
  return { version: entry.version, block: toProtoBlock(entry.block, entry.version) };
}

function toProtoBlock(block: JsonBlock, version = 0): object {
  return {
    version,
    description: block.description ?? "",
    description_kind: "PLAIN",
    attributes: Object.entries(block.attributes ?? {}).map(([name, a]) => toProtoAttribute(name, a)),
    block_types: Object.entries(block.block_types ?? {}).map(([name, b]) => ({
      type_name: name,
      block: toProtoBlock(b.block),
      nesting: b.nesting_mode.toUpperCase(),
      min_items: b.min_items ?? 0,
      max_items: b.max_items ?? 0,
    })),
  };
}

function toProtoAttribute(name: string, a: JsonAttribute): object {
  return {
    name,
    ...(a.type !== undefined ? { type: Buffer.from(JSON.stringify(a.type)) } : {}),
    ...(a.nested_type
      ? {
          nested_type: {
            attributes: Object.entries(a.nested_type.attributes).map(([n, x]) => toProtoAttribute(n, x)),
            nesting: a.nested_type.nesting_mode.toUpperCase(),
          },
        }
      : {}),
    description: a.description ?? "",
    description_kind: "PLAIN",
    required: a.required === true,
    optional: a.optional === true,
    computed: a.computed === true,
    sensitive: a.sensitive === true,
    write_only: a.write_only === true,
    deprecated: a.deprecated === true,
  };
}
