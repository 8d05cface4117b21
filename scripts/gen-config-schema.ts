/**
 * Builds the text of schemas/config.schema.json, the JSON Schema of a YAML configuration file for
 * editors (see docs/configuration.md > Editor support), from the kind schemas (see scripts/gen.ts).
 *
 * No field is copied: each API field is a `$ref` to its definition in the kind's `$defs.create` (or a
 * module's `$defs.put`), e.g. `kinds/api_key.schema.json#/$defs/create/properties/description`. Only
 * the configuration's own parts are written here: the layout (collections, the `edges:` tree from
 * src/config/module-tree.ts), names, reconciler options, metadata as a mapping or a string, and string
 * fields with a pattern, format or enum also accepting `${env:...}` / `${file:...}` (and `${ref:...}`
 * where the field holds an id).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: descriptions show the interpolation syntax itself
import { NAME_PATTERN, STACK_PATTERN } from "../src/config/layout.js";
import { moduleTree, type TreeNode } from "../src/config/module-tree.js";
import { STATE_SETTING_SCHEMA } from "../src/config/state-setting.js";
import { OWNERSHIP_MODES } from "../src/model/desired.js";
import { collections, type KindDescriptor, moduleKinds } from "../src/model/index.js";
import { optionsFor } from "../src/model/resource-options.js";
import { ID_BODY } from "../src/model/validation/ids.js";

type Schema = Record<string, unknown>;

const ID = "https://tunnelgw.dev/schemas/config.schema.json";
const INTERPOLATED = "\\$\\{(env|file):[^}]+\\}";
const REF = "^\\$\\{ref:[a-z0-9_]+\\.[a-z0-9][a-z0-9_-]*\\}$";

/** `kinds/api_key.schema.json` from the kind's `$id`. */
function fileOf(kind: KindDescriptor): string {
  return new URL(kind.schemaId).pathname.replace(/^\/schemas\//, "");
}

function fieldSchema(kind: KindDescriptor, def: string, field: KindDescriptor["fields"][number]): Schema {
  const ref = { $ref: `${fileOf(kind)}#/$defs/${def}/properties/${field.name}` };
  if (field.isMetadata) {
    return {
      description:
        "A mapping (sent as JSON text with sorted keys) or a string; the top-level key tgw is reserved.",
      anyOf: [{ type: "object", not: { required: ["tgw"] } }, ref],
    };
  }
  const s = field.schema;
  const constrained = s.type === "string" && ("pattern" in s || "format" in s || "enum" in s);
  if (!constrained) return ref;
  const alternatives: Schema[] = [ref, { $ref: "#/$defs/interpolated" }];
  if (field.ref) alternatives.push({ $ref: "#/$defs/ref" });
  return { anyOf: alternatives };
}

function kindSchema(kind: KindDescriptor): Schema {
  const def = kind.defs.has("put") ? "put" : "create";
  const properties: Record<string, Schema> = {};
  for (const field of kind.fields) properties[field.name] = fieldSchema(kind, def, field);
  for (const option of optionsFor(kind.kind)) {
    properties[option.name] = { type: option.type, description: option.description };
  }
  const required = kind.fields.filter((f) => f.required).map((f) => f.name);
  return {
    title: kind.title,
    description: kind.description,
    type: ["object", "null"],
    additionalProperties: false,
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

function treeSchema(node: TreeNode): Schema {
  if (node.module) return { $ref: `#/$defs/${node.module.kind}` };
  if (node.param) {
    return {
      type: ["object", "null"],
      description: `Keyed by ${node.param.kind.title} id.`,
      propertyNames: { pattern: `^${node.param.kind.idPrefix}${ID_BODY}$` },
      additionalProperties: treeSchema(node.param.child),
    };
  }
  return {
    type: ["object", "null"],
    additionalProperties: false,
    properties: Object.fromEntries([...node.literals].map(([key, child]) => [key, treeSchema(child)])),
  };
}

/** The JSON text of schemas/config.schema.json (2-space indent, final newline). */
export function generateConfigSchema(): string {
  const properties: Record<string, Schema> = {
    stack: {
      type: "string",
      pattern: STACK_PATTERN,
      description:
        "Ownership scope of this configuration (docs/design.md section 3). Default: the configuration directory's name.",
    },
    ownership: {
      enum: [...OWNERSHIP_MODES],
      default: OWNERSHIP_MODES[0],
      description:
        "marker: tgw writes an ownership marker into each resource's metadata; state-only: the state store alone records ownership.",
    },
    moved: {
      type: ["array", "null"],
      description:
        "Resources renamed without recreating them: the object of from becomes to (its ownership marker is rewritten with one PATCH). See docs/configuration.md.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["from", "to"],
        properties: {
          from: {
            type: "string",
            description: "The old address, e.g. api_keys.ci (no longer in the configuration).",
          },
          to: {
            type: "string",
            description: "The new address, e.g. api_keys.deployer (in the configuration).",
          },
        },
      },
    },
    removed: {
      type: ["array", "null"],
      description:
        "Resources tgw stops managing without deleting them: the ownership marker is taken out of the object's metadata (one PATCH) and its state record dropped. See docs/configuration.md.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["from"],
        properties: {
          from: {
            type: "string",
            description: "The address, e.g. api_keys.legacy (no longer in the configuration).",
          },
        },
      },
    },
    import: {
      type: ["array", "null"],
      description:
        "Existing objects adopted by the plan at a configured address (as Terraform's import blocks): apply writes this stack's ownership marker into each and records it. See docs/configuration.md.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["to", "id"],
        properties: {
          to: { type: "string", description: "The address in the configuration, e.g. api_keys.ci." },
          id: { type: "string", description: "The id of the existing object, e.g. ak_2Ab3Cd." },
        },
      },
    },
    state: structuredClone(STATE_SETTING_SCHEMA) as unknown as Schema,
  };
  const defs: Record<string, Schema> = {
    name: {
      type: "string",
      pattern: NAME_PATTERN,
      description: "A resource name: its address is <collection>.<name>.",
    },
    interpolated: {
      type: "string",
      pattern: INTERPOLATED,
      description: "A string using ${env:NAME} or ${file:PATH}, checked after substitution by tgw validate.",
    },
    ref: {
      type: "string",
      pattern: REF,
      description: "${ref:<collection>.<name>}: the id of another resource of this configuration.",
    },
  };
  for (const [collection, kind] of collections()) {
    properties[collection] = {
      type: ["object", "null"],
      description: `${kind.title}s by name.`,
      propertyNames: { $ref: "#/$defs/name" },
      additionalProperties: { $ref: `#/$defs/${kind.kind}` },
    };
    defs[kind.kind] = kindSchema(kind);
  }
  for (const kind of moduleKinds()) defs[kind.kind] = kindSchema(kind);
  for (const [key, node] of moduleTree().literals) properties[key] = treeSchema(node);

  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: ID,
    title: "tgw configuration",
    description:
      "Desired state of the Tunnel Gateway Management API for tgw (docs/configuration.md). Generated by `npm run gen` from schemas/kinds: do not edit.",
    type: ["object", "null"],
    additionalProperties: false,
    patternProperties: { "^x-": {} },
    properties,
    $defs: defs,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
