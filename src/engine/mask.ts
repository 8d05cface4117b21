/**
 * Secret values (docs/design.md section 3.4) located by the kind's schema: `secretPaths` (e.g.
 * `private_key_pem`, `client_secret`, `target.monitoring_target.api_key`, `token`) and write-only
 * fields. Used to mask plan output and to keep secrets out of fingerprints.
 */
import type { KindDescriptor } from "../model/index.js";
import { pointerSegments } from "../model/json-pointer.js";
import type { Values } from "./action.js";

/** What masked values show. */
export const SENSITIVE = "(sensitive)";

/**
 * `values` with every secret value (at the kind's secret paths, through lists) replaced by
 * `replace(value)`; absent and null values stay as they are. `values` is not changed: the objects
 * and lists on the way to a replaced value are copied, the rest is shared (so a kind without secrets
 * gets `values` itself back). Do not mutate the result.
 */
export function mapSecrets(
  kind: KindDescriptor,
  values: Values,
  replace: (value: unknown) => unknown,
): Values {
  let out: unknown = values;
  for (const path of secretPathsOf(kind)) out = replaceAt(out, path, 0, replace);
  return out as Values;
}

/** The kind's secret paths and write-only fields, by kind (descriptors live as long as the process). */
function secretPathsOf(kind: KindDescriptor): string[][] {
  let paths = pathsByKind.get(kind);
  if (paths === undefined) {
    paths = [...kind.secretPaths];
    for (const f of kind.fields) if (f.writeOnly) paths.push([f.name]);
    pathsByKind.set(kind, paths);
  }
  return paths;
}
const pathsByKind = new WeakMap<KindDescriptor, string[][]>();

/** `node` with the value at `path` from its `at`-th name on replaced (the path is not copied per step). */
function replaceAt(node: unknown, path: string[], at: number, replace: (value: unknown) => unknown): unknown {
  if (Array.isArray(node)) {
    const items = node.map((item) => replaceAt(item, path, at, replace));
    return items.some((item, i) => item !== node[i]) ? items : node;
  }
  if (!node || typeof node !== "object" || at >= path.length) return node;
  const head = path[at] as string;
  const obj = node as Record<string, unknown>;
  // Most values lack most secret paths (an API key's `token` is never desired): nothing to copy.
  if (!(head in obj) || obj[head] === null || obj[head] === undefined) return node;
  const next = at === path.length - 1 ? replace(obj[head]) : replaceAt(obj[head], path, at + 1, replace);
  return next === obj[head] ? node : { ...obj, [head]: next };
}

/**
 * `values` with every secret shown as `(sensitive)`: the kind's secrets, and the values at
 * `sensitive` (JSON pointers of values from the environment, `Change.sensitive`). A pointer is
 * followed through objects only: a list on its way is masked whole, as normalising may reorder it.
 */
export function maskValues(kind: KindDescriptor, values: Values, sensitive?: readonly string[]): Values {
  let out = mapSecrets(kind, values, () => SENSITIVE);
  for (const pointer of sensitive ?? []) out = maskPointer(out, pointerSegments(pointer), 0) as Values;
  return out;
}

/** `node` with the value at `names` (from its `at`-th) masked; the way there is copied. */
function maskPointer(node: unknown, names: string[], at: number): unknown {
  if (node === undefined || node === null || node === SENSITIVE) return node;
  if (at >= names.length || Array.isArray(node) || typeof node !== "object") return SENSITIVE;
  const obj = node as Record<string, unknown>;
  const head = names[at] as string;
  if (!(head in obj)) return node;
  const next = maskPointer(obj[head], names, at + 1);
  return next === obj[head] ? node : { ...obj, [head]: next };
}
