/**
 * State records (src/state/store.ts `StateRecord`) of applied objects: id, fingerprint of the
 * desired values applied (./fingerprint.ts), SHA-256 of each write-only input, reference targets.
 * Never a secret value.
 */
import type { DesiredResource } from "../model/desired.js";
import type { KindDescriptor } from "../model/index.js";
import type { StateRecord } from "../state/store.js";
import type { Values } from "./action.js";
import { sameJson } from "./diff.js";
import { sha256, valuesFingerprint, writeOnlyDigest } from "./fingerprint.js";
import { desiredValues } from "./normalize.js";
import { DEPOSED_SUFFIX } from "./ownership.js";

/**
 * The record of `resource` applied as object `id` with `fields` (references resolved).
 * @param values `desiredValues(kind, fields)` when the caller has them (a plan's `after`), else made here
 */
export function buildRecord(
  kind: KindDescriptor,
  resource: DesiredResource,
  id: string,
  fields: Record<string, unknown>,
  appliedAt: Date,
  values: Values = desiredValues(kind, fields),
): StateRecord {
  let writeOnly: Record<string, string> | undefined;
  for (const f of kind.fields) {
    const v = fields[f.name];
    if (!f.writeOnly || typeof v !== "string") continue;
    writeOnly ??= {};
    writeOnly[f.name] = writeOnlyDigest(f, v);
  }
  return {
    address: resource.address,
    kind: kind.kind,
    id,
    fingerprint: valuesFingerprint(kind, values),
    ...(writeOnly ? { writeOnly } : {}),
    ...(resource.dependsOn.length > 0 ? { dependsOn: [...new Set(resource.dependsOn)].sort() } : {}),
    appliedAt: appliedAt.toISOString(),
  };
}

/**
 * `record` with the token delivery of `before`, the previous record of the same object: where a key's
 * token went is known at its create only, and a record rebuilt later (an update, a no-op whose
 * fingerprint or references changed) must keep it. Returns `record`, changed in place.
 */
export function keepDelivery(record: StateRecord, before: StateRecord | undefined): StateRecord {
  if (before?.id === record.id && before.tokenDelivered) record.tokenDelivered = before.tokenDelivered;
  return record;
}

/** The record keeping the old object of a replace (created first) until it is deleted. */
export function deposedRecord(address: string, kind: string, id: string, appliedAt: Date): StateRecord {
  return {
    address: `${address}${DEPOSED_SUFFIX}`,
    kind,
    id,
    fingerprint: sha256(`deposed ${id}`),
    appliedAt: appliedAt.toISOString(),
  };
}

/** True when two records say the same thing (the time of the last apply aside): the same canonical JSON. */
export function sameRecord(a: StateRecord | undefined, b: StateRecord): boolean {
  if (!a) return false;
  const { appliedAt: _a, ...x } = a;
  const { appliedAt: _b, ...y } = b;
  return sameJson(x, y);
}
