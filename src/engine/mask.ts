/**
 * Secret values (docs/design.md section 3.4) located by the kind's schema: `secretPaths` (e.g.
 * `private_key_pem`, `client_secret`, `target.monitoring_target.api_key`, `token`) and write-only
 * fields. Used to mask plan output and to keep secrets out of fingerprints.
 */
import type { KindDescriptor } from "../model/index.js";
import type { Values } from "./action.js";

/** What masked values show. */
export const SENSITIVE = "(sensitive)";

/**
 * A copy of `values` with every secret value (at the kind's secret paths, through lists) replaced by
 * `replace(value)`; absent and null values stay as they are.
 */
export function mapSecrets(
  kind: KindDescriptor,
  values: Values,
  replace: (value: unknown) => unknown,
): Values {
  const out = structuredClone(values);
  const paths = [...kind.secretPaths];
  for (const f of kind.fields) if (f.writeOnly) paths.push([f.name]);
  for (const path of paths) visit(out, path, replace);
  return out;
}

function visit(node: unknown, path: string[], replace: (value: unknown) => unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, path, replace);
    return;
  }
  if (!node || typeof node !== "object" || path.length === 0) return;
  const [head, ...rest] = path as [string, ...string[]];
  const obj = node as Record<string, unknown>;
  if (!(head in obj) || obj[head] === null || obj[head] === undefined) return;
  if (rest.length === 0) obj[head] = replace(obj[head]);
  else visit(obj[head], rest, replace);
}

/** `values` with every secret shown as `(sensitive)`. */
export function maskValues(kind: KindDescriptor, values: Values): Values {
  return mapSecrets(kind, values, () => SENSITIVE);
}
