/**
 * The values of the Terraform conformance matrix (./conformance.test.ts), generated from the provider
 * schema and the kind descriptors (so from `schemas/`): no resource type, data source or field is
 * named here. Every settable attribute gets two distinct valid values, variant 0 (set at create) and
 * variant 1 (set by an update, or by the replacing change). Rules, in order:
 *
 * - the standard JSON Schema `examples` of the field: `examples[variant]` (the i-th examples of the
 *   fields of one kind are valid together, e.g. a certificate and its private key);
 * - `x-tgw.ref`: a reference `tunnelgw_<type>.ref<variant>.id` to another resource of the
 *   configuration when the referenced kind is a resource type, else the id of an existing object
 *   (fixtures, or objects the test made through the API): `RefSource`;
 * - `enum`: values other than the default first; booleans: not the default first;
 *   integers: above the default (or minimum); strings by `format` (uri, date-time, regex, email), or a
 *   `tgw-conformance-<variant>`-like text that matches the `pattern`;
 * - arrays: `[item0]`, then `[item0, item1]`; maps: `{key0: value}`, then two keys; objects: every
 *   property, and for `exactlyOneOf` the member `members[variant]`.
 *
 * A value that none of these rules can derive (a PEM certificate, an SSH public key, XML) throws an
 * error asking for `examples` in the schema, naming the type and attribute.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getKind, type JsonSchema, type KindDescriptor } from "../../src/model/index.js";
import {
  desiredKindOf,
  desiredKinds,
  listedKindOf,
  moduleParams,
  pluralName,
  resourceType,
} from "../../src/model/terraform-names.js";
import type { JsonAttribute, JsonSchemaEntry, ProviderSchema } from "../../src/terraform/schema.js";

/** Which of the two values of an attribute. */
export type Variant = 0 | 1;

/** A reference to another object of the configuration (rendered as `${expression}`). */
export class Ref {
  constructor(readonly expression: string) {}
}

/** An attribute value: JSON, with references. */
export type Value = null | boolean | number | string | Ref | Value[] | { [key: string]: Value };

/** Ids of existing objects of the kinds that are not resource types (edges, CAs, users...). */
export interface RefSource {
  /** At least two ids of `kind` (under `parentId` for a nested kind such as a route). */
  ids(kind: string, parentId?: string): string[];
}

/** The name of the resource under test of every type; `ref0`, `ref1` are what references point to. */
export const MAIN = "main";
const PREFIX = "tunnelgw_";

/** One resource type of the matrix and its values. */
export interface TypeCase {
  type: string;
  kind: KindDescriptor;
  /** Every settable attribute (required and optional) at variant 0. */
  create: Record<string, Value>;
  /** The attributes an update may change in place, in schema order, each with its variant 1. */
  updates: { attribute: string; value: Value }[];
  /** Updatable attributes with only one valid value (nothing to update to). */
  fixed: string[];
  /** Every attribute whose change replaces the object, at variant 1. */
  replace: Record<string, Value>;
  /**
   * Settable attributes that are not fields of the kind (the API key's `token_file`, which only tgw
   * reads): the API does not hold them, so an import cannot know them and the first apply after an
   * import sets them in the state alone (what acceptance tests call ImportStateVerifyIgnore).
   */
  configOnly: string[];
}

/** One data source of the matrix: its arguments and how to read the same object from the API. */
export interface DataCase {
  type: string;
  args: Record<string, string>;
  /** API path of the object (`GET`), or of the list (`list` set) a list data source shows. */
  path: string;
  list?: { attribute: string; listKey: string };
  /**
   * Set for a managed kind's data source, which reads this workspace's resource of that type: the
   * path is known after apply, from the data source's `id` (an object's id, or a module's path).
   */
  pathOf?: (id: string) => string;
}

/** Everything the matrix applies: the types, the referenced resources, the data sources. */
export interface Matrix {
  types: TypeCase[];
  /** Resource types that references point to: `ref0` and `ref1` of each, with their values. */
  refTargets: Map<string, [Record<string, Value>, Record<string, Value>]>;
  dataSources: DataCase[];
}

/** Generation context: where the value goes (for errors) and how references resolve. */
export interface Ctx {
  where: string;
  refs: RefSource;
  /** Resource types that references point to (filled while generating). */
  targets: Set<string>;
  /** The kind being generated (a reference to its own type uses existing ids instead). */
  self?: string;
}

const typeByKind = (): Map<string, string> => new Map(desiredKinds().map((k) => [k.kind, resourceType(k)]));
const xtgw = (s: JsonSchema): Record<string, unknown> => (s["x-tgw"] as Record<string, unknown>) ?? {};
const typesOf = (s: JsonSchema): string[] =>
  ((Array.isArray(s.type) ? s.type : [s.type]) as string[]).filter((t) => t && t !== "null");

/** Deep equality of two generated values. */
export function sameValue(a: Value, b: Value): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A valid value of `schema` (a field's schema, `$ref`s inlined).
 * @throws Error naming `ctx.where` when no rule derives one: add `examples` to the schema.
 */
export function schemaValue(schema: JsonSchema, variant: Variant, ctx: Ctx): Value {
  const examples = schema.examples as Value[] | undefined;
  if (Array.isArray(examples) && examples.length > 0) return examples[variant % examples.length] ?? null;
  const ref = xtgw(schema).ref as string | string[] | undefined;
  if (ref !== undefined && typesOf(schema).includes("string")) return refValue([ref].flat(), variant, ctx);
  if (Array.isArray(schema.enum)) return pick(schema.enum as Value[], schema.default as Value, variant);
  if ("const" in schema) return schema.const as Value;
  const [type] = typesOf(schema);
  switch (type) {
    case "boolean":
      return typeof schema.default === "boolean" ? (variant === 0) !== schema.default : variant === 0;
    case "integer":
    case "number":
      return numberOf(schema, variant);
    case "string":
      return stringOf(schema, variant, ctx);
    case "array":
      return arrayOf(schema, variant, ctx);
    case "object":
      return schema.properties ? objectOf(schema, variant, ctx) : mapOf(schema, variant, ctx);
    default:
      throw new Error(`${ctx.where}: cannot derive a value of type ${String(type)}: add examples`);
  }
}

/** `values[variant]`, the values other than `fallback` (the default) first. */
function pick(values: Value[], fallback: Value, variant: Variant): Value {
  const ordered = [
    ...values.filter((v) => !sameValue(v, fallback)),
    ...values.filter((v) => sameValue(v, fallback)),
  ];
  return ordered[variant % ordered.length] ?? null;
}

/** A reference: to `ref<variant>` of a resource type, or an existing object's id. */
function refValue(kinds: string[], variant: Variant, ctx: Ctx): Value {
  const kind = kinds[variant % kinds.length] as string;
  const type = typeByKind().get(kind);
  if (type && kind !== ctx.self) {
    ctx.targets.add(type);
    return new Ref(`${type}.ref${variant}.id`);
  }
  const ids = ctx.refs.ids(kind);
  const index = kinds.length > 1 ? 0 : variant;
  const id = ids[index];
  if (id === undefined) throw new Error(`${ctx.where}: no ${kind} to refer to (need ${index + 1})`);
  return id;
}

function numberOf(schema: JsonSchema, variant: Variant): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : 0;
  const max = typeof schema.maximum === "number" ? schema.maximum : Number.MAX_SAFE_INTEGER;
  const base = typeof schema.default === "number" ? schema.default : min;
  const value = base + 1 + variant;
  return value <= max ? value : min + variant;
}

/** The example key pairs (examples/keys): variant 0 and 1 each a certificate with its own key. */
const KEY_PAIRS = ["app.example.com", "api.example.com"];
const exampleKey = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../examples/keys/${name}`, import.meta.url)), "utf8");

const FORMATS: Record<string, (v: Variant) => string> = {
  // Test material from examples/keys, not `examples` in schemas/: no private key ships in the schemas.
  "pem-certificate-chain": (v) => exampleKey(`${KEY_PAIRS[v]}.crt.pem`),
  "pem-private-key": (v) => exampleKey(`${KEY_PAIRS[v]}.key.pem`),
  uri: (v) => `https://tgw-conformance-${v}.example.com/`,
  "date-time": (v) => `2030-0${v + 1}-01T00:00:00Z`,
  regex: (v) => `^tgw-conformance-${v}$`,
  email: (v) => `tgw-conformance-${v}@example.com`,
};
const TEXTS = (v: Variant) => [`tgw-conformance-${v}`, `x-tgw-${v}`, `tgw${v}`, `tgw_${v}`, `${v}`];

function stringOf(schema: JsonSchema, variant: Variant, ctx: Ctx): string {
  const format = schema.format as string | undefined;
  if (format !== undefined) {
    const make = FORMATS[format];
    if (!make) throw new Error(`${ctx.where}: cannot derive a ${format} value: add examples to the schema`);
    return make(variant);
  }
  const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern, "u") : undefined;
  const text = TEXTS(variant).find((t) => !pattern || pattern.test(t));
  if (text === undefined) {
    throw new Error(
      `${ctx.where}: no derived text matches ${String(schema.pattern)}: add examples to the schema`,
    );
  }
  return text;
}

function arrayOf(schema: JsonSchema, variant: Variant, ctx: Ctx): Value[] {
  const ref = xtgw(schema).ref;
  const items = { ...(schema.items as JsonSchema), ...(ref ? { "x-tgw": { ref } } : {}) } as JsonSchema;
  const first = schemaValue(items, 0, { ...ctx, where: `${ctx.where}[0]` });
  if (variant === 0) return [first];
  const second = schemaValue(items, 1, { ...ctx, where: `${ctx.where}[1]` });
  return sameValue(first, second) ? [second] : [first, second];
}

function objectOf(schema: JsonSchema, variant: Variant, ctx: Ctx): Record<string, Value> {
  const members = (schema.exactlyOneOf as string[] | undefined) ?? [];
  const chosen = members[variant % Math.max(members.length, 1)];
  const out: Record<string, Value> = {};
  for (const [name, s] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    if (members.includes(name) && name !== chosen) continue;
    out[name] = schemaValue(s, variant, { ...ctx, where: `${ctx.where}.${name}` });
  }
  return out;
}

function mapOf(schema: JsonSchema, variant: Variant, ctx: Ctx): Record<string, Value> {
  const keys = (schema.propertyNames ?? { type: "string" }) as JsonSchema;
  const ap = schema.additionalProperties;
  const values = (typeof ap === "object" ? ap : { type: "string" }) as JsonSchema;
  const key = (v: Variant) => stringOf({ type: "string", ...keys }, v, { ...ctx, where: `${ctx.where} key` });
  const value = schemaValue(values, variant, { ...ctx, where: `${ctx.where}.${key(0)}` });
  return variant === 0 ? { [key(0)]: value } : { [key(0)]: value, [key(1)]: value };
}

/** The values of a module's parent ids (`edge_id`, `route_id`): the `variant`-th parent object. */
function moduleParamValues(kind: KindDescriptor, variant: Variant, refs: RefSource): Record<string, string> {
  const out: Record<string, string> = {};
  let parentId: string | undefined;
  for (const p of moduleParams(kind)) {
    const ids = refs.ids(p.kind.kind, p.kind.parent ? parentId : undefined);
    const id = ids[p.kind.parent ? 0 : variant];
    if (id === undefined) throw new Error(`${resourceType(kind)}.${p.name}: no ${p.kind.kind}`);
    out[p.name] = id;
    parentId = id;
  }
  return out;
}

/** The value of one settable attribute of a resource type. */
function attributeValue(
  kind: KindDescriptor,
  name: string,
  attr: JsonAttribute,
  variant: Variant,
  ctx: Ctx,
): Value {
  const field = kind.fields.find((f) => f.name === name);
  if (field) return schemaValue(field.schema, variant, ctx);
  if (attr.type === "string") return `tgw-conformance-${variant}`;
  throw new Error(`${ctx.where}: not a field of ${kind.kind} and not a string: extend conformance-values.ts`);
}

/** Every settable attribute of `entry` at `variant` (`onlyRequired`: the required ones). */
function settable(
  entry: JsonSchemaEntry,
  kind: KindDescriptor,
  variant: Variant,
  refs: RefSource,
  targets: Set<string>,
  onlyRequired = false,
): Record<string, Value> {
  const type = resourceType(kind);
  const params = moduleParamValues(kind, variant, refs);
  const out: Record<string, Value> = {};
  for (const [name, attr] of Object.entries(entry.block.attributes ?? {})) {
    if (!(attr.required || (attr.optional && !onlyRequired))) continue;
    const ctx: Ctx = { where: `${type}.${name}`, refs, targets, self: kind.kind };
    out[name] = params[name] ?? attributeValue(kind, name, attr, variant, ctx);
  }
  return out;
}

/** The case of one resource type. */
function typeCase(
  type: string,
  entry: JsonSchemaEntry,
  kind: KindDescriptor,
  refs: RefSource,
  targets: Set<string>,
): TypeCase {
  const create = settable(entry, kind, 0, refs, targets);
  const second = settable(entry, kind, 1, refs, targets);
  const attrs = entry.block.attributes ?? {};
  const replacing = (name: string) =>
    (attrs[name] as { requires_replace?: boolean }).requires_replace === true;
  const names = Object.keys(create);
  const updatable = names.filter((n) => !replacing(n));
  return {
    type,
    kind,
    create,
    updates: updatable
      .filter((n) => !sameValue(create[n] ?? null, second[n] ?? null))
      .map((n) => ({ attribute: n, value: second[n] ?? null })),
    fixed: updatable.filter((n) => sameValue(create[n] ?? null, second[n] ?? null)),
    replace: Object.fromEntries(names.filter(replacing).map((n) => [n, second[n] ?? null])),
    configOnly: names.filter(
      (n) => !kind.fields.some((f) => f.name === n) && !moduleParams(kind).some((p) => p.name === n),
    ),
  };
}

/** The case of one data source: arguments from existing objects. */
function dataCase(type: string, entry: JsonSchemaEntry, refs: RefSource): DataCase {
  const attrs = entry.block.attributes ?? {};
  const required = Object.keys(attrs).filter((n) => attrs[n]?.required);
  const listed = listedKindOf(type);
  if (listed) {
    // Without filters: every object of the list (under the first object of the parent kind).
    const parentId = listed.parent ? refs.ids(listed.parent)[0] : undefined;
    const args = Object.fromEntries(required.map((n) => [n, parentId ?? ""]));
    const path = listed.path.replace(/\{\w+\}/, parentId ?? "");
    return { type, args, path, list: { attribute: pluralName(listed), listKey: listed.listKey as string } };
  }
  if (required.length === 0) throw new Error(`${type}: a data source without arguments must list a kind`);
  const managed = desiredKindOf(type);
  if (managed) {
    // The resource of the same type in this workspace (a managed kind holds no fixtures).
    const ref = (name: string) => `\${${type}.${MAIN}.${name}}`;
    const args = Object.fromEntries(required.map((n) => [n, ref(n)]));
    const pathOf = (id: string) => (managed.module ? id : `${managed.path}/${id}`);
    return { type, args, path: "", pathOf };
  }
  const kind = getKind(type.slice(PREFIX.length));
  const parentId = kind.parent ? refs.ids(kind.parent)[0] : undefined;
  const id = refs.ids(kind.kind, parentId)[0] as string;
  const args: Record<string, string> = { id };
  for (const name of required.filter((n) => n !== "id")) {
    if (!parentId) throw new Error(`${type}.${name}: a required argument that is not a parent id`);
    args[name] = parentId;
  }
  const path = `${kind.path.replace(/\{\w+\}/, parentId ?? "")}/${id}`;
  return { type, args, path };
}

/** A referenced resource type whose `ref0` / `ref1` are not made yet (they may refer further). */
function nextTarget(targets: Set<string>, done: Map<string, unknown>): string | undefined {
  return [...targets].sort().find((t) => !done.has(t));
}

/**
 * The whole matrix from the provider schema: one case per resource type and data source.
 * @param refs existing objects that references and data sources use
 * @throws Error naming the type and attribute whose value cannot be derived
 */
export function buildMatrix(schema: ProviderSchema, refs: RefSource): Matrix {
  const targets = new Set<string>();
  const types = Object.entries(schema.resources)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, entry]) => {
      const kind = desiredKindOf(type);
      if (!kind) throw new Error(`${type}: no kind in src/model has this resource type`);
      return typeCase(type, entry, kind, refs, targets);
    });
  const refTargets: Matrix["refTargets"] = new Map();
  for (let type = nextTarget(targets, refTargets); type; type = nextTarget(targets, refTargets)) {
    const kind = desiredKindOf(type) as KindDescriptor;
    const entry = schema.resources[type] as JsonSchemaEntry;
    const at = (v: Variant) => settable(entry, kind, v, refs, targets, true);
    refTargets.set(type, [at(0), at(1)]);
  }
  const dataSources = Object.entries(schema.dataSources)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, entry]) => dataCase(type, entry, refs));
  return { types, refTargets, dataSources };
}

/**
 * A body for `POST kind.path` with the required fields of a kind at `variant`: for the objects the
 * test makes through the API when the fixtures hold too few.
 */
export function requiredBody(kind: KindDescriptor, variant: Variant, refs: RefSource): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const f of kind.fields.filter((x) => x.required)) {
    out[f.name] = schemaValue(f.schema, variant, {
      where: `${kind.kind}.${f.name}`,
      refs,
      targets: new Set(),
    });
  }
  return out;
}

/** An `import {}` block: `to` an address, by `id`. */
export interface ImportBlock {
  to: string;
  id: string;
}

/** A value in Terraform's JSON syntax: references as `${...}`, literal `${` and `%{` escaped. */
export function toTerraformJson(value: Value): unknown {
  if (value instanceof Ref) return `\${${value.expression}}`;
  if (typeof value === "string") return value.replace(/\$\{/g, "$${").replace(/%\{/g, "%%{");
  if (Array.isArray(value)) return value.map(toTerraformJson);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toTerraformJson(v)]));
  }
  return value;
}

/**
 * The configuration (`main.tf.json`): `main` of every type with `values`, `ref0` / `ref1` of the
 * referenced types, every data source (`x`) with an output of its whole value, and `imports`.
 */
export function configuration(
  matrix: Matrix,
  values: ReadonlyMap<string, Record<string, Value>>,
  imports: ImportBlock[] = [],
): object {
  const resource: Record<string, Record<string, unknown>> = {};
  for (const [type, attrs] of values) resource[type] = { [MAIN]: toTerraformJson(attrs) };
  for (const [type, [ref0, ref1]] of matrix.refTargets) {
    resource[type] = { ...resource[type], ref0: toTerraformJson(ref0), ref1: toTerraformJson(ref1) };
  }
  // A list data source is read after every resource's change (a list shows the objects made here).
  const addresses = Object.entries(resource).flatMap(([type, byName]) =>
    Object.keys(byName).map((name) => `${type}.${name}`),
  );
  const data = Object.fromEntries(
    matrix.dataSources.map((d) => [d.type, { x: d.list ? { ...d.args, depends_on: addresses } : d.args }]),
  );
  const output = Object.fromEntries(
    matrix.dataSources.map((d) => [d.type, { value: `\${data.${d.type}.x}`, sensitive: true }]),
  );
  return {
    terraform: { required_providers: { tunnelgw: { source: "tunnelgw/tunnelgw" } } },
    resource,
    data,
    output,
    ...(imports.length > 0 ? { import: imports } : {}),
  };
}

/** Paths under `api` whose value is set there but null, absent or different in `tf`. */
export function unsetValues(api: unknown, tf: unknown, path = ""): string[] {
  if (api === null || api === undefined) return [];
  if (tf === null || tf === undefined) return [`${path || "."} is null (API: ${JSON.stringify(api)})`];
  if (Array.isArray(api)) {
    if (!Array.isArray(tf) || tf.length !== api.length) return [`${path} differs`];
    return api.flatMap((v, i) => unsetValues(v, tf[i], `${path}[${i}]`));
  }
  if (typeof api === "object") {
    if (typeof tf !== "object") return [`${path} differs`];
    const t = tf as Record<string, unknown>;
    return Object.entries(api).flatMap(([k, v]) => unsetValues(v, t[k], `${path}.${k}`));
  }
  return api === tf ? [] : [`${path} is ${JSON.stringify(tf)} (API: ${JSON.stringify(api)})`];
}
