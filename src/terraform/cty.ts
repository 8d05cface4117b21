/**
 * Terraform values on the wire: the `DynamicValue` of plugin protocol 6 holds a value of Terraform's
 * type system (cty) encoded as msgpack, guided by the value's type.
 *
 * - An object is a msgpack map holding every attribute of its type (null when absent); a list or a set
 *   is an array; a map is a map; a number is an integer or a float64; null is nil.
 * - A value not known until apply is the msgpack extension type 0 (written as the 3 bytes `d4 00 00`);
 *   an unknown with refinements (extension type 12) is read as plainly unknown.
 *
 * In JavaScript a value is plain data (`TfValue`) with the `UNKNOWN` symbol for unknown values; types
 * are cty's JSON type notation (`"string"`, `["list","string"]`, `["object",{...}]`).
 */
import { decode, ExtensionCodec, encode } from "@msgpack/msgpack";

/** The unknown value: known only after apply. */
export const UNKNOWN: unique symbol = Symbol("unknown");

/** A Terraform value: null, a primitive, a list, an object or map, or unknown. */
export type TfValue = null | string | number | boolean | TfValue[] | TfObject | typeof UNKNOWN;
/** An object or map value. */
export interface TfObject {
  [key: string]: TfValue;
}

/** A cty type in its JSON notation. */
export type CtyType =
  | "string"
  | "number"
  | "bool"
  | "dynamic"
  | ["list" | "set" | "map", CtyType]
  | ["object", Record<string, CtyType>]
  | ["tuple", CtyType[]];

const UNKNOWN_EXT = 0;
const REFINED_UNKNOWN_EXT = 12;

const codec = new ExtensionCodec();
codec.register({
  type: UNKNOWN_EXT,
  encode: (input: unknown) => (input === UNKNOWN ? new Uint8Array([0]) : null),
  decode: () => UNKNOWN,
});
codec.register({ type: REFINED_UNKNOWN_EXT, encode: () => null, decode: () => UNKNOWN });

/** True when `v` is or contains an unknown value. */
export function hasUnknown(v: TfValue | undefined): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(hasUnknown);
  if (v && typeof v === "object") return Object.values(v).some(hasUnknown);
  return false;
}

/** `value` shaped to `type`: every object attribute present (null when missing), others dropped. */
export function conform(type: CtyType, value: TfValue | undefined): TfValue {
  if (value === undefined || value === null) return null;
  if (value === UNKNOWN) return UNKNOWN;
  if (typeof type === "string") return value;
  const [tag, inner] = type;
  if (tag === "object") {
    const obj = value as TfObject;
    const out: TfObject = {};
    for (const [name, t] of Object.entries(inner)) out[name] = conform(t, obj[name]);
    return out;
  }
  if (tag === "map") {
    const out: TfObject = {};
    for (const [k, v] of Object.entries(value as TfObject)) out[k] = conform(inner, v);
    return out;
  }
  if (tag === "tuple") return (value as TfValue[]).map((v, i) => conform(inner[i] ?? "dynamic", v));
  return (value as TfValue[]).map((v) => conform(inner, v));
}

/** The msgpack bytes of `value` as a value of `type`. */
export function encodeValue(type: CtyType, value: TfValue | undefined): Uint8Array {
  return encode(conform(type, value), { extensionCodec: codec, ignoreUndefined: false });
}

/** Decodes msgpack bytes (empty bytes: null). */
export function decodeValue(bytes: Uint8Array | undefined): TfValue {
  if (!bytes || bytes.length === 0) return null;
  return decode(bytes, { extensionCodec: codec }) as TfValue;
}

/** Decodes a value written as JSON (raw state): no unknowns, plain data. */
export function valueFromJson(type: CtyType, text: string): TfValue {
  return conform(type, JSON.parse(text) as TfValue);
}
