/**
 * References between managed resources (`${ref:<collection>.<name>}` in configuration, a `RefValue`
 * in desired state). A reference resolves to the target's id; while the target is still to be
 * created (or replaced) the id is unknown and the `RefValue` stays, which the diff treats as a change
 * and the plan shows as `(known after apply)`.
 */
import { isRef, type RefValue } from "../model/desired.js";

/** Where a reference's id comes from: the id, or undefined when it is not known yet. */
export type IdLookup = (address: string) => string | undefined;

/** `fields` with every reference (top level, or an item of a top-level list) replaced by its id when known. */
export function resolveRefs(fields: Record<string, unknown>, idOf: IdLookup): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) out[name] = resolveValue(value, idOf);
  return out;
}

/**
 * True when `fields` holds a RefValue where `resolveRefs` replaces them (a field, or an item of a
 * list field), or is not a plain object (a YAML `__proto__` key sets its prototype, which the copy
 * leaves out); false means `resolveRefs` would return an equal copy.
 */
export function holdsRefs(fields: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(fields) !== Object.prototype) return true;
  for (const value of Object.values(fields)) {
    if (isRef(value) || (Array.isArray(value) && value.some(isRef))) return true;
  }
  return false;
}

function resolveValue(value: unknown, idOf: IdLookup): unknown {
  if (isRef(value)) return idOf(value.$ref) ?? value;
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, idOf));
  return value;
}

/** The references still unresolved in `fields` (addresses), sorted and distinct. */
export function unresolvedRefs(fields: Record<string, unknown>): string[] {
  let found: Set<string> | undefined; // most resources: none, and no Set
  for (const v of Object.values(fields)) found = collectRefs(v, found);
  return found === undefined ? [] : [...found].sort();
}

function collectRefs(v: unknown, found: Set<string> | undefined): Set<string> | undefined {
  if (isRef(v)) return (found ?? new Set()).add((v as RefValue).$ref);
  if (Array.isArray(v)) for (const x of v) found = collectRefs(x, found);
  return found;
}
