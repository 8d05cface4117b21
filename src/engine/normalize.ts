/**
 * Comparable form of an object's fields, computed the same way for the desired side (what the
 * configuration says) and the live side (what the API returned), so that `diff` only has to compare
 * canonical JSON. Every rule is derived from the kind's schema (schemas/README.md):
 *
 * - only the request fields of the kind (`$defs.create` / `$defs.put`); a response field is read at
 *   its `x-tgw.live` path when its shape differs (`backend.id`, `ip_policies[].id`);
 * - a field the configuration leaves out takes its schema `default` (both sides); without a default
 *   it is not compared (`owner_id`, `valid_after`...);
 * - nested objects are projected onto their schema's properties (a subscription source
 *   `{type, uri}` becomes `{type}`), null members dropped, nested defaults filled;
 * - `normalize: trim | lowercase | lowercase-keys`, `unordered` lists compared as sorted sets,
 *   `format: date-time` compared as instants (`toISOString`);
 * - `metadata` is compared as data with the ownership marker removed (src/model/metadata.ts);
 * - write-only fields (`private_key_pem`) are compared by SHA-256 fingerprint: the desired value's
 *   digest against the digest the state kept when it was last sent (PEM text normalised first,
 *   ./fingerprint.ts `writeOnlyDigest`).
 *
 * A reference whose id is not known before apply stays a `RefValue` (`{"$ref": address}`) and never
 * equals a live value.
 */
import { isRef } from "../model/desired.js";
import {
  canonicalJson,
  type FieldDescriptor,
  type JsonSchema,
  type KindDescriptor,
  markerIn,
  normalizeUserMetadata,
  type UserMetadata,
  userMetadataObject,
  withoutMarker,
} from "../model/index.js";
import type { Values } from "./action.js";
import { DIGEST_PREFIX, writeOnlyDigest } from "./fingerprint.js";

interface FieldAnnotation {
  normalize?: "trim" | "lowercase" | "lowercase-keys";
  unordered?: boolean;
}

const NO_ANNOTATION: FieldAnnotation = Object.freeze({});
const annotation = (schema: JsonSchema): FieldAnnotation =>
  (schema["x-tgw"] ?? NO_ANNOTATION) as FieldAnnotation;

/** `Object.entries(schema.properties)`, once per schema node (every object value of a kind walks it). */
function propertyEntries(props: Record<string, JsonSchema>): [string, JsonSchema][] {
  let entries = propertyCache.get(props);
  if (entries === undefined) {
    entries = Object.entries(props);
    propertyCache.set(props, entries);
  }
  return entries;
}
const propertyCache = new WeakMap<object, [string, JsonSchema][]>();

/**
 * The comparable form of one value under `schema` (nested `x-tgw` annotations honoured).
 * Returns undefined for null/undefined. `inherited` carries a list's string normalisation to its items.
 */
export function normalizeValue(
  schema: JsonSchema,
  value: unknown,
  inherited?: "trim" | "lowercase",
): unknown {
  if (value === null || value === undefined) return undefined;
  if (isRef(value)) return value;
  const x = annotation(schema);
  if (typeof value === "string") {
    let s = value;
    if (schema.format === "date-time") {
      const t = Date.parse(s);
      if (!Number.isNaN(t)) s = new Date(t).toISOString();
    }
    const how = x.normalize ?? inherited;
    if (how === "trim") s = s.trim();
    else if (how === "lowercase") s = s.toLowerCase();
    return s;
  }
  if (Array.isArray(value)) {
    const items = (schema.items ?? {}) as JsonSchema;
    const pass = x.normalize === "trim" || x.normalize === "lowercase" ? x.normalize : undefined;
    const out = value.map((v) => normalizeValue(items, v, pass)).filter((v) => v !== undefined);
    return x.unordered ? sortedSet(out) : out;
  }
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const props = schema.properties as Record<string, JsonSchema> | undefined;
    const out: Record<string, unknown> = {};
    if (props) {
      for (const [key, propSchema] of propertyEntries(props)) {
        let v = normalizeValue(propSchema, obj[key]);
        if (v === undefined && "default" in propSchema) v = normalizeValue(propSchema, propSchema.default);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    const valueSchema = (
      typeof schema.additionalProperties === "object" ? schema.additionalProperties : {}
    ) as JsonSchema;
    for (const key of Object.keys(obj).sort()) {
      const v = normalizeValue(valueSchema, obj[key]);
      if (v !== undefined) out[x.normalize === "lowercase-keys" ? key.toLowerCase() : key] = v;
    }
    return out;
  }
  return value;
}

function sortedSet(values: unknown[]): unknown[] {
  const byText = new Map<string, unknown>();
  for (const v of values) byText.set(canonicalJson(v), v);
  return [...byText.keys()].sort().map((k) => byText.get(k));
}

/** A metadata string that is exactly `{"value": "<text>"}` compares as `<text>` (how a plain string is wrapped). */
function unwrapValue(text: string): string {
  const obj = userMetadataObject(text);
  if (obj && Object.keys(obj).length === 1 && typeof obj.value === "string") return obj.value;
  return text;
}

/** The user part of desired metadata (mapping or string), comparable with `liveMetadata`. */
export function desiredMetadata(user: UserMetadata): string {
  return unwrapValue(normalizeUserMetadata(user));
}

/** The user part of live metadata text, marker removed, comparable with `desiredMetadata`. */
export function liveMetadata(wire: unknown): string {
  if (typeof wire !== "string") return "";
  return userPartOf(wire, userMetadataObject(wire));
}

/**
 * The metadata of a response body (`field`: its kind's `metadataField`, always the same for a body)
 * as an object, when its text is a JSON object; parsed once per body (the refresh reads the marker
 * from it, liveValues the user's part). Shared: do not mutate it.
 */
export function liveMetadataObject(
  raw: Record<string, unknown>,
  field: string,
): Record<string, unknown> | undefined {
  let parsed = metadataObjects.get(raw);
  if (parsed === undefined) {
    const text = raw[field];
    parsed = (typeof text === "string" ? userMetadataObject(text) : undefined) ?? null;
    metadataObjects.set(raw, parsed);
  }
  return parsed ?? undefined;
}

/** liveMetadataObject's results by response body (null: not a JSON object). */
const metadataObjects = new WeakMap<object, Record<string, unknown> | null>();

/** liveMetadata of `wire`, whose parsed object (when it is a JSON object) is `obj`. */
function userPartOf(wire: string, obj: Record<string, unknown> | undefined): string {
  // What unwrapValue(normalizeUserMetadata(decodeMetadata(wire).user)) gives, with one JSON.parse and
  // at most one canonicalJson (that chain parsed and wrote the same object up to three times; canonical
  // JSON read back and written again is the same text). test/engine/normalize.test.ts compares them.
  if (!obj) return wire;
  const marked = markerIn(obj) !== undefined;
  const rest = marked ? withoutMarker(obj) : obj;
  const keys = Object.keys(rest);
  if (keys.length === 0) return "";
  if (keys.length === 1 && typeof rest.value === "string") {
    // A marked `{"value": text}` is how a plain string was sent: that text is the user's, read as such.
    return marked ? desiredMetadata(rest.value) : rest.value;
  }
  return canonicalJson(rest);
}

/** Reads a response value at a `live` path: `backend.id`, or `ip_policies[].id` (a list of ids). */
export function readLivePath(raw: Record<string, unknown>, path: string): unknown {
  const list = /^(\w+)\[\]\.(\w+)$/.exec(path);
  if (list) {
    const items = raw[list[1] as string];
    return Array.isArray(items)
      ? items.map((item) =>
          item && typeof item === "object" ? (item as Record<string, unknown>)[list[2] as string] : undefined,
        )
      : undefined;
  }
  let node: unknown = raw;
  for (const key of path.split(".")) {
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function withDefault(field: FieldDescriptor, value: unknown): unknown {
  const v = normalizeValue(field.schema, value);
  if (v !== undefined || !("default" in field)) return v;
  return normalizeValue(field.schema, field.default);
}

/**
 * Comparable desired values: every field the configuration sets plus every field with a schema
 * default; `metadata` always (its default is ""). `fields` has refs resolved to ids where known.
 */
export function desiredValues(kind: KindDescriptor, fields: Record<string, unknown>): Values {
  const out: Values = {};
  for (const field of kind.fields) {
    const value = fields[field.name];
    if (field.isMetadata) out[field.name] = desiredMetadata(value as UserMetadata);
    else if (field.writeOnly) {
      if (typeof value === "string") out[field.name] = `${DIGEST_PREFIX}${writeOnlyDigest(field, value)}`;
    } else {
      const v = withDefault(field, value);
      if (v !== undefined) out[field.name] = v;
    }
  }
  return out;
}

/**
 * Comparable live values of a response body: every request field the response shows (write-only
 * fields from `writeOnlyDigests`, the hex SHA-256 digests the state kept, when known). The result is
 * shared between callers given the same body (the live fingerprint and the plan both read every
 * object): do not mutate it.
 */
export function liveValues(
  kind: KindDescriptor,
  raw: Record<string, unknown>,
  writeOnlyDigests: Record<string, string> = {},
): Values {
  const plain = kind.fields.every((f) => !f.writeOnly || writeOnlyDigests[f.name] === undefined);
  const cached = plain ? liveCache.get(raw) : undefined;
  if (cached?.kind === kind) return cached.values;
  const values = computeLiveValues(kind, raw, writeOnlyDigests);
  if (plain) liveCache.set(raw, { kind, values });
  return values;
}

/** liveValues without write-only digests, by response body (bodies are not changed once read). */
const liveCache = new WeakMap<object, { kind: KindDescriptor; values: Values }>();

function computeLiveValues(
  kind: KindDescriptor,
  raw: Record<string, unknown>,
  writeOnlyDigests: Record<string, string>,
): Values {
  const out: Values = {};
  for (const field of kind.fields) {
    if (field.isMetadata) {
      const wire = raw[field.name];
      if (typeof wire !== "string") out[field.name] = "";
      else {
        // The parse the refresh kept is of the kind's metadata field (the only one a kind has).
        const obj =
          field.name === kind.metadataField ? liveMetadataObject(raw, field.name) : userMetadataObject(wire);
        out[field.name] = userPartOf(wire, obj);
      }
    } else if (field.writeOnly) {
      const digest = writeOnlyDigests[field.name];
      if (digest !== undefined) out[field.name] = `${DIGEST_PREFIX}${digest}`;
    } else {
      const v = withDefault(field, field.live ? readLivePath(raw, field.live) : raw[field.name]);
      if (v !== undefined) out[field.name] = v;
    }
  }
  return out;
}
