/**
 * The diff: which fields of one object differ between desired and live, both already in comparable
 * form (./normalize.ts). Pure, field by field, only over the fields desired state compares (those the
 * configuration sets plus schema defaults). A write-only field whose last digest is unknown (the
 * state was rebuilt from markers) cannot be compared and counts as unchanged.
 */
import { canonicalJson, type KindDescriptor } from "../model/index.js";
import type { Values } from "./action.js";

/** Names of the fields whose desired value differs from the live one, sorted. */
export function diffValues(kind: KindDescriptor, desired: Values, live: Values): string[] {
  const changed: string[] = [];
  for (const name of sortedKeys(kind, desired)) {
    const field = kind.fields.find((f) => f.name === name);
    if (field?.writeOnly && !(name in live)) continue;
    const a = desired[name];
    const b = live[name];
    // Two strings are equal as JSON exactly when they are equal: most fields, without writing them.
    if (typeof a === "string" && typeof b === "string" ? a !== b : canonicalJson(a) !== canonicalJson(b))
      changed.push(name);
  }
  return changed;
}

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
