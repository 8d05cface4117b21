/**
 * Terraform values <-> tgw's model, for one resource type. Pure: no I/O.
 *
 * A resource's attributes are the kind's request fields (same names), `id` (the server id; a module's
 * API path), a module's parent ids (`edge_id`, `route_id`) and the response-only fields, computed.
 * Comparisons go through the engine's normalisation and diff (src/engine/normalize.ts, diff.ts), so
 * Terraform and `tgw plan` agree on what changed:
 *
 * - plan: the configured value of every attribute Terraform lets the provider keep; an omitted
 *   optional+computed field takes its schema default (what the server applies), else the prior value,
 *   else unknown; the changed fields are the engine's diff of config against prior state, and those a
 *   PATCH cannot change require a replace; a response-only attribute derived from a changed field
 *   (`FieldDescriptor.determines`: `backend` from `backend_id`, `tunnels` from `labels`) is unknown;
 * - read: a field whose live value equals the prior one after normalisation keeps the prior text (so a
 *   header name the server lower-cased never shows as a change); a field that differs takes the live
 *   value (drift);
 * - `metadata` holds the user's part; the ownership marker never reaches the state;
 * - write-only fields (`private_key_pem`) are null in state: their SHA-256 digest (PEM text
 *   normalised first, as the engine does) is kept in the resource's private state and compared like
 *   the engine compares it;
 * - a secret the API does not return is kept from the prior state; the `token` of an API key is set
 *   once at create and kept.
 */

import { diffValues, replaceFields } from "../engine/diff.js";
import { keptDigests, writeOnlyDigest } from "../engine/fingerprint.js";
import { desiredValues, liveMetadata, liveValues, readLivePath } from "../engine/normalize.js";
import { type FieldDescriptor, fillPath, type KindDescriptor } from "../model/index.js";
import { desiredKindOf } from "../model/terraform-names.js";
import { conform, hasUnknown, type TfObject, type TfValue, UNKNOWN } from "./cty.js";
import { attributeType, type JsonAttribute, type JsonSchemaEntry } from "./schema.js";

/** One resource type with its kind and attributes. */
export interface ResourceType {
  typeName: string;
  kind: KindDescriptor;
  attributes: Record<string, JsonAttribute>;
}

/** Private state of a resource: digests of write-only values as last sent (hex SHA-256). */
export interface PrivateState {
  writeOnly?: Record<string, string>;
}

/** The parent ids of a module (`edge_id`, `route_id`), from its path template. */
export function pathParams(kind: KindDescriptor): string[] {
  return kind.module ? [...kind.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string) : [];
}

/** The resource type `typeName` with its kind, or undefined when no desired-state kind has that type. */
export function resourceType(typeName: string, entry: JsonSchemaEntry): ResourceType | undefined {
  const kind = desiredKindOf(typeName);
  return kind ? { typeName, kind, attributes: entry.block.attributes ?? {} } : undefined;
}

/** Drops nulls (recursively) so a Terraform value reads like configuration fields. */
function stripNulls(v: TfValue): unknown {
  if (v === null || v === UNKNOWN) return v === UNKNOWN ? v : undefined;
  if (Array.isArray(v)) return v.map(stripNulls).filter((x) => x !== undefined);
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const s = stripNulls(x);
      if (s !== undefined) out[k] = s;
    }
    return out;
  }
  return v;
}

/** The request fields a Terraform object sets (unknowns kept as `UNKNOWN`). */
export function fieldsOf(rt: ResourceType, obj: TfObject | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!obj) return out;
  for (const f of rt.kind.fields) {
    const v = stripNulls(obj[f.name] ?? null);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/** A module's API path from its parent ids; undefined while one is unknown. */
export function moduleId(kind: KindDescriptor, obj: TfObject): string | undefined {
  const params: Record<string, string> = {};
  for (const p of pathParams(kind)) {
    const v = obj[p];
    if (typeof v !== "string") return undefined;
    params[p] = v;
  }
  return fillPath(kind.path, params);
}

/** The comparable values of `fields`, with the digests of write-only values (`digests`: hex, as kept). */
function comparable(rt: ResourceType, fields: Record<string, unknown>, digests?: Record<string, string>) {
  const values = desiredValues(rt.kind, fields);
  for (const [name, hex] of Object.entries(digests ?? {})) values[name] = `sha256:${hex}`;
  return values;
}

/**
 * The fields whose value differs between `config` and `prior` (engine diff; a field holding an
 * unknown value counts as changed), and among them those that force a replace (module parents too).
 */
export function changedFields(
  rt: ResourceType,
  config: TfObject,
  prior: TfObject,
  priv: PrivateState,
): { changed: string[]; replace: string[] } {
  const desired = fieldsOf(rt, config);
  const unknown = Object.keys(desired).filter((k) => hasUnknown(desired[k] as TfValue));
  for (const k of unknown) delete desired[k];
  const after = comparable(rt, desired);
  const before = comparable(rt, fieldsOf(rt, prior), keptDigests(rt.kind, desired, priv.writeOnly));
  for (const k of unknown) after[k] = UNKNOWN;
  const changed = diffValues(rt.kind, after, before);
  for (const k of unknown) if (!changed.includes(k)) changed.push(k);
  const replace = replaceFields(rt.kind, changed);
  for (const p of pathParams(rt.kind)) if (config[p] !== prior[p]) replace.push(p);
  return { changed: changed.sort(), replace: replace.sort() };
}

function fieldOf(rt: ResourceType, name: string): FieldDescriptor | undefined {
  return rt.kind.fields.find((f) => f.name === name);
}

/** The default of an omitted optional+computed attribute, conformed to its type. */
function plannedDefault(attr: JsonAttribute, schemaDefault: unknown): TfValue {
  return conform(attributeType(attr), schemaDefault as TfValue);
}

/** The response-only attributes the server derives from one of the `changed` fields (schemas/ `determines`). */
function derivedFrom(rt: ResourceType, changed: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const name of changed) for (const d of fieldOf(rt, name)?.determines ?? []) out.add(d);
  return out;
}

/**
 * The planned new state. `prior` null: a create. `replace`: the object will be created again, so
 * computed values are unknown. `changed` (an update, from `changedFields`): the response-only
 * attributes derived from a changed field are unknown too, since the server computes their new value
 * (keeping the prior one made Terraform report an inconsistent result, issue 27).
 */
export function plannedState(
  rt: ResourceType,
  config: TfObject,
  prior: TfObject | null,
  replace: boolean,
  changed: readonly string[] = [],
): TfObject {
  const out: TfObject = {};
  const fresh = prior === null || replace;
  const stale = derivedFrom(rt, changed);
  for (const [name, attr] of Object.entries(rt.attributes)) {
    const field = fieldOf(rt, name);
    const configured = config[name] ?? null;
    if (attr.write_only) out[name] = null;
    else if (!attr.computed) out[name] = configured;
    else if (attr.optional && configured !== null) out[name] = plannedNested(attr, configured, prior?.[name]);
    else if (field && "default" in field) out[name] = plannedDefault(attr, field.default);
    else if (name === "id" && rt.kind.module) out[name] = moduleId(rt.kind, config) ?? UNKNOWN;
    else if (!fresh && prior && !stale.has(name)) out[name] = prior[name] ?? null;
    else out[name] = UNKNOWN;
  }
  return out;
}

/** A configured nested object: its omitted computed members get their defaults or prior values. */
function plannedNested(attr: JsonAttribute, configured: TfValue, prior: TfValue | undefined): TfValue {
  if (attr.nested_type?.nesting_mode !== "single" || !isObject(configured)) return configured;
  const out: TfObject = {};
  const before = isObject(prior) ? prior : {};
  for (const [name, inner] of Object.entries(attr.nested_type.attributes)) {
    const v = configured[name] ?? null;
    out[name] =
      v !== null || !inner.computed ? plannedNested(inner, v, before[name]) : (before[name] ?? null);
  }
  return out;
}

function isObject(v: TfValue | undefined): v is TfObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value of attribute `name` as the live object `raw` shows it. */
function liveAttribute(
  rt: ResourceType,
  name: string,
  attr: JsonAttribute,
  raw: Record<string, unknown>,
): TfValue {
  const field = fieldOf(rt, name);
  if (field?.isMetadata) return liveMetadata(raw[name]);
  const value = field?.live ? readLivePath(raw, field.live) : raw[name];
  return conform(attributeType(attr), (value ?? null) as TfValue);
}

/** `raw` with every secret the API left out filled from `known` (so it is not seen as drift). */
export function withKnownSecrets(
  rt: ResourceType,
  raw: Record<string, unknown>,
  known: TfObject,
): Record<string, unknown> {
  const out = structuredClone(raw);
  for (const path of rt.kind.secretPaths) {
    if (path.length === 1 && path[0] === "token") continue;
    let live: Record<string, unknown> | undefined = out;
    let prior: TfValue | undefined = known;
    for (const [i, key] of path.entries()) {
      const last = i === path.length - 1;
      const p: TfValue | undefined = isObject(prior) ? prior[key] : undefined;
      if (last) {
        if ((live[key] === undefined || live[key] === null) && typeof p === "string") live[key] = p;
      } else {
        const next = live[key];
        if (!next || typeof next !== "object" || Array.isArray(next)) break;
        live = next as Record<string, unknown>;
        prior = p;
      }
    }
  }
  return out;
}

/**
 * The state after a read (or an apply) of the live object `raw`: the fields equal to `known`'s under
 * normalisation keep `known`'s values, every other attribute shows the live value. `known` is the
 * prior state on refresh, the planned state after apply (unknowns are filled from the response).
 * `allLive` (import): every field shows the live value.
 */
export function stateFromLive(
  rt: ResourceType,
  known: TfObject,
  rawIn: Record<string, unknown>,
  id: string,
  priv: PrivateState,
  allLive = false,
): TfObject {
  const raw = withKnownSecrets(rt, rawIn, known);
  const knownFields = fieldsOf(rt, known);
  const desired = comparable(rt, knownFields);
  const live = liveValues(rt.kind, raw, priv.writeOnly);
  for (const k of Object.keys(desired)) if (hasUnknown(knownFields[k] as TfValue)) delete desired[k];
  const changed = new Set(allLive ? Object.keys(live) : diffValues(rt.kind, desired, live));
  const out: TfObject = {};
  for (const [name, attr] of Object.entries(rt.attributes)) {
    const prior = known[name] ?? null;
    const field = fieldOf(rt, name);
    if (attr.write_only) out[name] = null;
    else if (name === "id") out[name] = id;
    else if (pathParams(rt.kind).includes(name) || (!field && !attr.computed)) out[name] = prior;
    else if (field && name in desired && !changed.has(name)) out[name] = prior;
    else if (field && !attr.computed && prior === null && !changed.has(name)) out[name] = null;
    else if (name === "token" && typeof prior === "string") out[name] = prior;
    else out[name] = liveAttribute(rt, name, attr, raw);
  }
  return out;
}

/** The write-only digests to keep after sending `config`'s values (hex SHA-256). */
export function writeOnlyDigests(rt: ResourceType, config: TfObject, prior: PrivateState): PrivateState {
  const digests: Record<string, string> = { ...(prior.writeOnly ?? {}) };
  for (const f of rt.kind.fields) {
    const v = config[f.name];
    if (f.writeOnly && typeof v === "string") digests[f.name] = writeOnlyDigest(f, v);
  }
  return Object.keys(digests).length > 0 ? { writeOnly: digests } : {};
}

/** Reads private state bytes (JSON; empty: none). */
export function readPrivate(bytes: Uint8Array | undefined): PrivateState {
  if (!bytes || bytes.length === 0) return {};
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8")) as PrivateState;
  } catch {
    return {};
  }
}

/** Private state as bytes. */
export function writePrivate(priv: PrivateState): Buffer {
  return Object.keys(priv).length === 0 ? Buffer.alloc(0) : Buffer.from(JSON.stringify(priv));
}
