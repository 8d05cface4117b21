/**
 * The schema check, stage 4 of loading a configuration (src/config/load.ts, src/config/cdktf/load.ts)
 * and the first check of the Terraform provider's `ValidateResourceConfig` (src/terraform/validate.ts):
 * each resource against its kind's request schema (`$defs.create`, modules `$defs.put`) with the
 * model's Ajv, so the project's formats (PEM chains and keys, SSH keys, regular expressions) and
 * keywords (`maxBytes`, `exactlyOneOf`) run on the values as they will be sent:
 *
 * - after interpolation (a PEM read from a file is parsed);
 * - with `metadata` in its wire form, ownership marker included when `ownership: marker`, so the
 *   4096-byte / 4096-character limit is checked on what the API will receive;
 * - with each `${ref:}` replaced by a placeholder (the refs rule judges it).
 *
 * Every Ajv error becomes a positioned problem with a plain-English message: `x-tgw.hint` instead of a
 * regular expression, `explainFormat` for our formats. Messages never quote a value.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { isRef, type OwnershipMode } from "../desired.js";
import {
  createAjv,
  encodeMetadata,
  explainFormat,
  getKind,
  type JsonSchema,
  MARKER_CREATE_PLACEHOLDER,
  MARKER_LINEAGE_PLACEHOLDER,
  MARKER_SERIAL_PLACEHOLDER,
  schemaKey,
} from "../index.js";
import { pointerSegments } from "../json-pointer.js";
import { optionsFor } from "../resource-options.js";
import * as generated from "../validators.gen.js";
import { didYouMean, listWords, withArticle } from "../words.js";
import { type Entry, locate, pointerChild, reportAt } from "./entry.js";
import { explainId } from "./ids.js";
import { childPath } from "./paths.js";
import type { ProblemList } from "./problems.js";

let ajv: ReturnType<typeof createAjv> | undefined;
/** By kind descriptor: looked up for every resource, without building its schema key each time. */
const validators = new Map<Entry["kind"], ValidateFunction>();

/**
 * The validator of an entry's kind: generated ahead of time (src/model/validators.gen.ts, `npm run
 * gen`), so a run neither loads Ajv nor compiles a schema; compiled here only for a kind the
 * generated module lacks.
 */
function validatorFor(entry: Entry): ValidateFunction {
  let fn = validators.get(entry.kind);
  if (fn) return fn;
  fn = (generated as Record<string, unknown>)[entry.kind.kind] as ValidateFunction | undefined;
  if (!fn) {
    const key = schemaKey(entry.kind.schemaId, entry.kind.defs.has("put") ? "put" : "create");
    ajv ??= createAjv();
    fn = ajv.getSchema(key) as ValidateFunction | undefined;
    if (!fn) throw new Error(`no schema ${key}`);
  }
  validators.set(entry.kind, fn);
  return fn;
}

/** What the schema stage needs besides the entry. */
export interface SchemaContext {
  stack: string;
  ownership: OwnershipMode;
  problems: ProblemList;
}

/** The request body the API would receive for `entry` (refs as placeholders). */
export function wireBody(entry: Entry, ctx: Omit<SchemaContext, "problems">): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entry.fields)) body[name] = withoutRefs(value);
  for (const field of entry.kind.fields) {
    if (!field.isMetadata || !(field.name in body)) continue;
    const user = body[field.name];
    if (typeof user !== "string" && !isPlainObject(user)) {
      delete body[field.name]; // reported by checkMetadataType
      continue;
    }
    // The lineage is the state's, unknown here: a placeholder of its length counts its bytes.
    const marker =
      ctx.ownership === "marker"
        ? {
            stack: ctx.stack,
            address: entry.address,
            lineage: MARKER_LINEAGE_PLACEHOLDER,
            serial: MARKER_SERIAL_PLACEHOLDER,
            create: MARKER_CREATE_PLACEHOLDER,
          }
        : undefined;
    body[field.name] = encodeMetadata(user as Record<string, unknown> | string, marker);
  }
  return body;
}

/** Validates every entry; problems go to `ctx.problems`. */
export function checkSchema(entries: readonly Entry[], ctx: SchemaContext): void {
  for (const entry of entries) {
    checkMetadataType(entry, ctx.problems);
    const validate = validatorFor(entry);
    const body = wireBody(entry, ctx);
    if (validate(body)) continue;
    const refPointers = new Set(entry.refs.map((r) => r.pointer));
    for (const error of validate.errors ?? []) {
      if (error.keyword === "propertyNames") continue; // its inner error names the key
      if (refPointers.has(error.instancePath)) continue; // the refs rule reports these
      report(entry, body, error, ctx);
    }
  }
}

function checkMetadataType(entry: Entry, problems: ProblemList): void {
  for (const field of entry.kind.fields) {
    if (!field.isMetadata || !(field.name in entry.fields)) continue;
    const v = entry.fields[field.name];
    if (typeof v !== "string" && !isPlainObject(v)) {
      reportAt(
        problems,
        entry,
        pointerChild("", field.name),
        `must be a mapping or a string (got ${typeName(v)})`,
      );
    }
  }
}

function report(entry: Entry, body: Record<string, unknown>, error: ErrorObject, ctx: SchemaContext): void {
  const { problems } = ctx;
  const pointer = error.instancePath;
  const here = locate(entry, pointer);
  const params = error.params as Record<string, unknown>;

  if (error.keyword === "required") {
    const missing = String(params.missingProperty);
    problems.add(here.pos, childPath(here.path, missing), "is required");
    return;
  }
  if (error.keyword === "additionalProperties") {
    const extra = String(params.additionalProperty);
    const allowed = Object.keys(propertiesAt(entry, pointer));
    if (pointer === "") allowed.push(...optionsFor(entry.kind.kind).map((o) => o.name));
    const of = pointer === "" ? ` of ${withArticle(entry.kind.title)}` : "";
    reportAt(
      problems,
      entry,
      pointerChild(pointer, extra),
      `unknown field${of}${didYouMean(extra, allowed)}; expected ${listWords(allowed)}`,
      { atKey: true },
    );
    return;
  }
  // A failing mapping key (propertyNames) is reported at the key itself.
  const propertyName = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    const keyPointer = pointerChild(pointer, propertyName);
    const hint = hintOf(schemaAt(entry, pointer)?.propertyNames as JsonSchema | undefined);
    reportAt(problems, entry, keyPointer, `is not ${hint ?? "a valid key here"}`, { atKey: true });
    return;
  }
  if (problems.hasExactly(here.path) && pointer !== "") return; // interpolation already failed here
  problems.add(here.pos, here.path, messageFor(entry, error, valueAt(body, pointer), ctx));
}

function messageFor(entry: Entry, error: ErrorObject, value: unknown, ctx: SchemaContext): string {
  const params = error.params as Record<string, unknown>;
  const pointer = error.instancePath;
  const fromFile = entry.fromFile.get(pointer);
  const read = fromFile ? ` (read from ${fromFile})` : "";
  switch (error.keyword) {
    case "type": {
      const types = Array.isArray(params.type) ? (params.type as string[]) : [String(params.type)];
      const quote = types.includes("string") && (typeof value === "number" || typeof value === "boolean");
      return `must be ${listWords(types.map(typeWord))} (got ${typeName(value)})${quote ? ": put it in quotes" : ""}`;
    }
    case "enum": {
      const allowed = params.allowedValues as unknown[];
      const words = allowed.filter((v): v is string => typeof v === "string");
      const hint = typeof value === "string" ? didYouMean(value, words) : "";
      return `must be ${listWords(allowed.map((v) => JSON.stringify(v)))}${hint}`;
    }
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case "format": {
      const format = String(params.format);
      const generic = FORMAT_WORDS[format] ?? `must be in the ${format} format`;
      // A parser's explanation may quote the value; text from the environment is never shown.
      if (entry.fromEnv.has(pointer)) return `${generic} (value from the environment not shown)`;
      return `${explainFormat(format, value) ?? generic}${read}`;
    }
    case "pattern": {
      const node = schemaAt(entry, pointer);
      const hint = hintOf(node);
      if (hint) return `must be ${hint}`;
      const refKinds = refKindsOf(node);
      const why = refKinds && typeof value === "string" ? explainId(value, refKinds.map(getKind)) : undefined;
      return why ?? `must match the regular expression ${String(params.pattern)}`;
    }
    case "minLength":
      return Number(params.limit) === 1
        ? "must not be empty"
        : `must be at least ${params.limit} characters long`;
    case "maxLength":
    case "maxBytes": {
      const unit = error.keyword === "maxBytes" ? "bytes of UTF-8" : "characters";
      const size =
        typeof value === "string"
          ? error.keyword === "maxBytes"
            ? Buffer.byteLength(value, "utf8")
            : [...value].length
          : undefined;
      const isMetadata = entry.kind.fields.some((f) => f.isMetadata && pointer === `/${f.name}`);
      const asSent =
        isMetadata && ctx.ownership === "marker"
          ? " as sent, which includes the ownership marker tgw adds"
          : "";
      return `must be at most ${params.limit} ${unit}${asSent} (is ${size ?? "more"})${read}`;
    }
    case "minItems":
      return `must have at least ${params.limit} ${Number(params.limit) === 1 ? "item" : "items"}`;
    case "maxItems":
      return `must have at most ${params.limit} items`;
    case "minimum":
      return `must be at least ${params.limit}`;
    case "maximum":
      return `must be at most ${params.limit}`;
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

const FORMAT_WORDS: Record<string, string> = {
  "date-time": "must be an RFC 3339 date and time, e.g. 2026-01-31T12:00:00Z",
  uri: "must be an absolute URI, e.g. https://idp.example.com",
  regex: "is not a valid regular expression",
  "pem-certificate-chain": "is not a PEM certificate chain that parses (leaf first)",
  "pem-private-key": "is not an unencrypted PEM private key (rsa, ecdsa or ed25519) that parses",
  "ssh-public-key": "is not an SSH public key line of type rsa, ecdsa or ed25519",
};

function typeWord(t: string): string {
  return (
    {
      string: "a string",
      integer: "a whole number",
      number: "a number",
      boolean: "true or false",
      object: "a mapping",
      array: "a list",
      null: "null",
    }[t] ?? t
  );
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "number") return Number.isInteger(v) ? "a whole number" : "a number";
  if (typeof v === "boolean") return "a boolean";
  return "a string";
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isRef(v);
}

/**
 * `v` with every RefValue replaced by its `${ref:...}` text. A value that holds no ref is returned as
 * it is (the validators only read it), so the common entry costs no copy.
 */
function withoutRefs(v: unknown): unknown {
  return needsCopy(v) ? copyWithoutRefs(v) : v;
}

/**
 * True when `v` holds a ref, or an object not made by `{}` (a YAML `__proto__` key sets its
 * prototype): the copy turns that into a plain object, as the validators always saw it.
 */
function needsCopy(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false; // most values: no walk, no array of values
  if (Array.isArray(v)) return v.some(needsCopy);
  if (Object.getPrototypeOf(v) !== Object.prototype || isRef(v)) return true;
  for (const key in v) if (needsCopy((v as Record<string, unknown>)[key])) return true;
  return false;
}

function copyWithoutRefs(v: unknown): unknown {
  if (isRef(v)) return `\${ref:${v.$ref}}`;
  if (Array.isArray(v)) return v.map(copyWithoutRefs);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copyWithoutRefs(x)]));
  return v;
}

/** The value at `pointer` in a request body. */
function valueAt(body: Record<string, unknown>, pointer: string): unknown {
  let v: unknown = body;
  for (const s of pointerSegments(pointer)) v = (v as Record<string, unknown> | undefined)?.[s];
  return v;
}

/** The (inlined) schema node describing the value at `pointer`, if the schema has one. */
export function schemaAt(entry: Entry, pointer: string): JsonSchema | undefined {
  const parts = pointerSegments(pointer);
  const first = parts.shift();
  if (first === undefined) return undefined;
  let node: JsonSchema | undefined = entry.kind.fields.find((f) => f.name === first)?.schema;
  for (const s of parts) {
    if (!node) return undefined;
    const props = node.properties as Record<string, JsonSchema> | undefined;
    node =
      props?.[s] ??
      (node.items as JsonSchema | undefined) ??
      (typeof node.additionalProperties === "object" ? (node.additionalProperties as JsonSchema) : undefined);
  }
  return node;
}

function propertiesAt(entry: Entry, pointer: string): Record<string, JsonSchema> {
  if (pointer === "") return Object.fromEntries(entry.kind.fields.map((f) => [f.name, f.schema]));
  return (schemaAt(entry, pointer)?.properties as Record<string, JsonSchema> | undefined) ?? {};
}

/** The kinds whose ids a schema node holds (`x-tgw.ref`), if any. */
export function refKindsOf(node: JsonSchema | undefined): string[] | undefined {
  const ref = (node?.["x-tgw"] as { ref?: string | string[] } | undefined)?.ref;
  return ref === undefined ? undefined : Array.isArray(ref) ? ref : [ref];
}

function hintOf(node: JsonSchema | undefined): string | undefined {
  return (node?.["x-tgw"] as { hint?: string } | undefined)?.hint;
}
