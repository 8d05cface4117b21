/**
 * Kind descriptors: what every other layer needs to know about a kind, derived from its schema
 * in `schemas/` (./kinds-derive.ts, rules in schemas/README.md) and never written a second time.
 * A run reads them from ./kinds.gen.ts, which `npm run gen` writes and test/model/kinds-gen.test.ts
 * keeps current.
 */

import type { FieldDescriptor, KindData, KindDescriptor } from "./kind-types.js";
import { KIND_DATA } from "./kinds.gen.js";

export type {
  FieldDescriptor,
  KindData,
  KindDescriptor,
  ModuleParent,
  Normalization,
  Operation,
} from "./kind-types.js";

let registry: Map<string, KindDescriptor> | undefined;

/** Every kind (docs/api.md kinds first, then referenced-only objects), keyed by kind name. */
export function allKinds(): ReadonlyMap<string, KindDescriptor> {
  registry ??= kindMap(KIND_DATA);
  return registry;
}

/**
 * Makes `kinds` the descriptors every later call sees, instead of ./kinds.gen.ts: for `npm run gen`,
 * which derives them from `schemas/` as they are now (the generated file may be the stale one).
 */
export function useKinds(kinds: readonly KindData[]): void {
  registry = kindMap(kinds);
}

function kindMap(kinds: readonly KindData[]): Map<string, KindDescriptor> {
  return new Map(
    kinds.map((k) => [k.kind, { ...k, operations: new Set(k.operations), defs: new Set(k.defs) }]),
  );
}

/**
 * The descriptor of one kind.
 * @throws Error if no schema declares that kind (a programming error, not user input).
 */
export function getKind(kind: string): KindDescriptor {
  const k = allKinds().get(kind);
  if (!k) throw new Error(`unknown kind ${kind}`);
  return k;
}

/**
 * The fields of `kind` that `keep` accepts, found once per kind and predicate: rules and the planner
 * look at thousands of objects of a few kinds. `keep` must be a constant (its identity is the cache's key).
 */
export function fieldsWhere(
  kind: KindDescriptor,
  keep: (field: FieldDescriptor) => boolean,
): readonly FieldDescriptor[] {
  let byKind = fieldCache.get(keep);
  if (byKind === undefined) {
    byKind = new WeakMap();
    fieldCache.set(keep, byKind);
  }
  let fields = byKind.get(kind);
  if (fields === undefined) {
    fields = kind.fields.filter(keep);
    byKind.set(kind, fields);
  }
  return fields;
}

const fieldCache = new WeakMap<
  (field: FieldDescriptor) => boolean,
  WeakMap<KindDescriptor, readonly FieldDescriptor[]>
>();

/** The 19 kinds of docs/api.md (10 resources and 9 modules). */
export function specKinds(): KindDescriptor[] {
  return [...allKinds().values()].filter((k) => !k.referencedOnly);
}

/** Kinds that are configuration collections (`api_keys`, ...), keyed by collection name. */
export function collections(): ReadonlyMap<string, KindDescriptor> {
  return new Map(specKinds().flatMap((k) => (k.collection ? [[k.collection, k] as const] : [])));
}

/** The nine module kinds. */
export function moduleKinds(): KindDescriptor[] {
  return specKinds().filter((k) => k.module);
}

/** The kind whose ids start with `prefix` + `_` rest, e.g. `kindOfId("ak_123")` is the API key. */
export function kindOfId(id: string): KindDescriptor | undefined {
  for (const k of allKinds().values()) if (k.idPrefix && id.startsWith(k.idPrefix)) return k;
  return undefined;
}

/** Fills a module or collection path template: `modulePath(saml, {edge_id, route_id})`. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path ${template} needs ${name}`);
    return encodeURIComponent(value);
  });
}
