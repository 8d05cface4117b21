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
  for (const name of Object.keys(desired).sort()) {
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

/** The fields among `changed` that a PATCH cannot change (so the object must be replaced), sorted. */
export function replaceFields(kind: KindDescriptor, changed: readonly string[]): string[] {
  return changed.filter((name) => kind.fields.find((f) => f.name === name)?.forcesReplace === true);
}
