/**
 * The diff: which fields of one object differ between desired and live, both already in comparable
 * form (./normalize.ts). Pure, field by field, only over the fields desired state compares (those the
 * configuration sets plus schema defaults). A write-only field whose last digest is unknown (the
 * state was rebuilt from markers) cannot be compared and counts as unchanged.
 */
import { canonicalJson, type FieldDescriptor, fieldsWhere, type KindDescriptor } from "../model/index.js";
import type { Values } from "./action.js";

/** Names of the fields whose desired value differs from the live one, sorted. */
export function diffValues(kind: KindDescriptor, desired: Values, live: Values): string[] {
  const changed: string[] = [];
  const writeOnly = fieldsWhere(kind, isWriteOnly);
  for (const name of sortedKeys(kind, desired)) {
    if (!(name in live) && writeOnly.some((f) => f.name === name)) continue;
    if (!sameJson(desired[name], live[name])) changed.push(name);
  }
  return changed;
}

/**
 * `canonicalJson(a) === canonicalJson(b)`, without writing either when both are plain data (strings,
 * finite numbers, booleans, null, arrays and plain objects of them), as normalised values are: then
 * their JSON texts are equal exactly when the values are equal, keys in any order. Anything else is
 * compared by its canonical JSON.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b; // most fields
  return isData(a) && isData(b) ? sameData(a, b) : canonicalJson(a) === canonicalJson(b);
}

/** True when `v` is plain data, whose JSON is simply its value. */
function isData(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v); // NaN and Infinity are written as null
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !isData(v[i])) return false; // a hole is null
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype || "toJSON" in v) return false;
  return Object.values(v).every(isData);
}

/** Equality of two plain data values (`isData`), object keys in any order. */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameData(x, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && sameData(x[k], y[k]));
}

const isWriteOnly = (f: FieldDescriptor) => f.writeOnly;

/**
 * `Object.keys(values).sort()`, from the kind's field names sorted once when every key is a field
 * (values made by ./normalize.ts always are): no sort per object.
 */
function sortedKeys(kind: KindDescriptor, values: Values): string[] {
  let names = sortedNames.get(kind);
  if (names === undefined) {
    names = kind.fields.map((f) => f.name).sort();
    sortedNames.set(kind, names);
  }
  const out = names.filter((name) => Object.hasOwn(values, name));
  return out.length === Object.keys(values).length ? out : Object.keys(values).sort();
}
const sortedNames = new WeakMap<KindDescriptor, string[]>();

/** The fields among `changed` that a PATCH cannot change (so the object must be replaced), sorted. */
export function replaceFields(kind: KindDescriptor, changed: readonly string[]): string[] {
  return changed.filter((name) => kind.fields.find((f) => f.name === name)?.forcesReplace === true);
}
