/**
 * The wire form of `metadata` and the ownership marker it carries (docs/design.md section 3.1).
 *
 * Rules:
 * - The user writes metadata as a mapping (becomes a JSON object) or as a string. A string that
 *   parses as a JSON object is that object; any other string is kept as `{"value": "<string>"}`
 *   when a marker must be added, and sent unchanged when not.
 * - With a marker, the object gets the key `tgw` = `{"address": ..., "create": ..., "lineage": ...,
 *   "serial": ..., "stack": ...}` (`create` only in the create call);
 *   the user may not use the key `tgw` (`MARKER_KEY`) at the top level of their metadata. `lineage`
 *   (the state lineage of the workspace that wrote the marker) is absent from markers written before
 *   it existed and from Terraform's; such a marker matches any lineage.
 * - JSON is written with keys sorted at every depth, so equal data always gives equal text.
 */
import { configure } from "safe-stable-stringify";

/** The key of the ownership marker inside metadata. */
export const MARKER_KEY = "tgw";

/** Who owns a resource: the stack and the address in that stack's desired state. */
export interface OwnershipMarker {
  stack: string;
  address: string;
  /** Lineage of the state of the workspace that wrote the marker; absent: any (older markers). */
  lineage?: string;
  /**
   * The serial of a state already written when the marker was sent (a state of this lineage that saw
   * the marker has at least this serial); absent in markers written before it existed. A marker with
   * a higher serial than the state reading it says the state is behind (docs/state.md > Claims).
   */
  serial?: number;
  /**
   * The create id of the pending create that made the object (written in the create call itself, and
   * recorded in the state before the call is sent): how the next run finds the outcome of a create
   * whose answer was lost (docs/state.md > Pending creates). Absent once the marker is rewritten.
   */
  create?: string;
}

/**
 * Length of the lineage the size check of the configuration assumes (a state lineage is a UUID, 36
 * characters), so that metadata accepted by `tgw validate` still fits once the real lineage is added.
 */
export const MARKER_LINEAGE_PLACEHOLDER = "0".repeat(36);

/** The serial the size check of the configuration assumes (9 digits: far more applies than any state sees). */
export const MARKER_SERIAL_PLACEHOLDER = 999_999_999;

/** Length of a create id (`OwnershipMarker.create`, 16 hex digits), assumed by the size check too. */
export const MARKER_CREATE_PLACEHOLDER = "0".repeat(16);

/** Metadata as written in configuration: a mapping, a string, or nothing. */
export type UserMetadata = Record<string, unknown> | string | undefined;

/** JSON text of `value` with object keys sorted at every depth (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  // As JSON.stringify: undefined for undefined (callers never pass it).
  return stringifySorted(value) as string;
}

const stringifySorted = configure({ deterministic: true, bigint: false });

function parseObject(text: string): Record<string, unknown> | undefined {
  // Most metadata is "" or plain text: not worth a JSON.parse that throws (thousands per refresh).
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The user's metadata as an object when it is one (a mapping, or a string holding a JSON object). */
export function userMetadataObject(user: UserMetadata): Record<string, unknown> | undefined {
  if (user === undefined) return undefined;
  return typeof user === "string" ? parseObject(user) : user;
}

/**
 * The metadata string to send. With `marker`, always a JSON object holding the marker; without,
 * the user's value (a mapping as canonical JSON, a string unchanged, nothing as "").
 */
export function encodeMetadata(user: UserMetadata, marker?: OwnershipMarker): string {
  if (!marker) return user === undefined ? "" : typeof user === "string" ? user : canonicalJson(user);
  const base =
    user === undefined || user === "" ? {} : (userMetadataObject(user) ?? { value: user as string });
  const written: OwnershipMarker = { stack: marker.stack, address: marker.address };
  if (marker.lineage !== undefined) written.lineage = marker.lineage;
  if (marker.serial !== undefined) written.serial = marker.serial;
  if (marker.create !== undefined) written.create = marker.create;
  return canonicalJson({ ...base, [MARKER_KEY]: written });
}

/**
 * Splits live metadata into the marker (if it carries a well-formed one) and the rest, as it
 * would have been written: `user` is the canonical JSON of the remaining object ("" when nothing
 * remains, the original string when it was wrapped as `{"value": ...}`), or the live string itself
 * when it is not a JSON object.
 */
export function decodeMetadata(live: string): { marker?: OwnershipMarker; user: string } {
  const obj = parseObject(live);
  if (!obj) return { user: live };
  const marker = markerIn(obj);
  if (!marker) return { user: canonicalJson(obj) };
  const rest = withoutMarker(obj);
  const keys = Object.keys(rest);
  const user =
    keys.length === 0
      ? ""
      : keys.length === 1 && typeof rest.value === "string"
        ? rest.value
        : canonicalJson(rest);
  return { marker, user };
}

/**
 * The well-formed marker (string `stack` and `address`) an object of metadata carries under
 * `MARKER_KEY`, as a new object; undefined when it has none.
 */
export function markerIn(obj: Record<string, unknown>): OwnershipMarker | undefined {
  const m = obj[MARKER_KEY] as Partial<OwnershipMarker> | undefined;
  if (!m || typeof m !== "object" || typeof m.stack !== "string" || typeof m.address !== "string") {
    return undefined;
  }
  const marker: OwnershipMarker = { stack: m.stack, address: m.address };
  if (typeof m.lineage === "string") marker.lineage = m.lineage;
  if (typeof m.serial === "number" && Number.isSafeInteger(m.serial)) marker.serial = m.serial;
  if (typeof m.create === "string") marker.create = m.create;
  return marker;
}

/** A copy of a metadata object without the marker key. */
export function withoutMarker(obj: Record<string, unknown>): Record<string, unknown> {
  const { [MARKER_KEY]: _, ...rest } = obj;
  return rest;
}

/**
 * The user's part of metadata in the same form `decodeMetadata` returns, for comparing desired
 * with live: `normalizeUserMetadata(desired) === decodeMetadata(live).user` means no drift.
 */
export function normalizeUserMetadata(user: UserMetadata): string {
  if (user === undefined || user === "") return "";
  const obj = userMetadataObject(user);
  if (obj) return Object.keys(obj).length === 0 ? "" : canonicalJson(obj);
  return user as string;
}

/**
 * Prefix of the marker stack of objects created through Terraform (`terraform:<stack>`). A tgw stack
 * name cannot contain `:` (config `stack` pattern), so no tgw stack ever owns, adopts by marker or
 * prunes such an object, and the Terraform provider refuses to import an object a tgw stack owns
 * (docs/terraform.md > Ownership).
 */
export const TERRAFORM_STACK_PREFIX = "terraform:";

/** True when the marker says Terraform created the object. */
export function isTerraformMarker(marker: OwnershipMarker | undefined): boolean {
  return marker?.stack.startsWith(TERRAFORM_STACK_PREFIX) === true;
}
