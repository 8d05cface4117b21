/**
 * Request bodies built from desired fields (references already resolved to ids):
 * - create (POST): every field the configuration sets, `metadata` carrying the ownership marker;
 * - update (PATCH): only the changed fields (a field the configuration dropped is sent as its schema
 *   default), `metadata` always whole, marker included;
 * - put (module PUT): every field the configuration sets (the server applies defaults to the rest).
 * Values are sent as the user wrote them; normalisation is only for comparing.
 */
import {
  encodeMetadata,
  type KindDescriptor,
  type OwnershipMarker,
  type UserMetadata,
} from "../model/index.js";
import { unresolvedRefs } from "./refs.js";

function assertResolved(address: string, fields: Record<string, unknown>): void {
  const open = unresolvedRefs(fields);
  if (open.length > 0)
    throw new Error(`${address}: references not resolved before the call: ${open.join(", ")}`);
}

/** Body of the POST creating an object. */
export function createBody(
  kind: KindDescriptor,
  address: string,
  fields: Record<string, unknown>,
  marker: OwnershipMarker | undefined,
): Record<string, unknown> {
  assertResolved(address, fields);
  const body: Record<string, unknown> = {};
  for (const f of kind.fields) {
    const v = fields[f.name];
    if (f.isMetadata) {
      const text = encodeMetadata(v as UserMetadata, marker);
      if (text !== "" || v !== undefined) body[f.name] = text;
    } else if (v !== undefined) body[f.name] = v;
  }
  return body;
}

/** Body of the PATCH changing `changed` fields in place. */
export function patchBody(
  kind: KindDescriptor,
  address: string,
  fields: Record<string, unknown>,
  changed: readonly string[],
  marker: OwnershipMarker | undefined,
): Record<string, unknown> {
  assertResolved(address, fields);
  const body: Record<string, unknown> = {};
  for (const f of kind.fields) {
    if (!changed.includes(f.name)) continue;
    if (!f.mutable) throw new Error(`${address}: ${f.name} cannot be changed by PATCH`);
    const v = fields[f.name];
    if (f.isMetadata) body[f.name] = encodeMetadata(v as UserMetadata, marker);
    else body[f.name] = v !== undefined ? v : structuredClone(f.default);
  }
  return body;
}

/** Body of the PUT setting a module. */
export function putBody(
  kind: KindDescriptor,
  address: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  assertResolved(address, fields);
  const body: Record<string, unknown> = {};
  for (const f of kind.fields) if (fields[f.name] !== undefined) body[f.name] = fields[f.name];
  return body;
}
