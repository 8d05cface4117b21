/**
 * How plan renderers show one field value: strings quoted as JSON, lists and objects inline when short
 * and one item per line when long, a reference not resolved yet as `(known after apply)`, a masked
 * secret as `(sensitive)`. Multi-line strings (PEM, SAML XML) are handled by the caller (./human.ts).
 */

import { SENSITIVE } from "../../engine/mask.js";
import { isRef } from "../../model/desired.js";

/** What a value unknown until apply shows. */
export const KNOWN_AFTER_APPLY = "(known after apply)";

/** True for a string of more than one line (shown as a block, and diffed line by line). */
export function isMultiline(value: unknown): value is string {
  return typeof value === "string" && value.includes("\n") && value.trim().includes("\n");
}

/**
 * One value on one line, or, when longer than 80 characters, a list or object with one item per line:
 * items indented 4 spaces more than `indent`, the closing bracket at `indent` (the column where the
 * line holding the opening bracket starts its text).
 */
export function formatValue(value: unknown, indent = ""): string {
  const flat = inline(value);
  if (flat.length <= 80 || value === null || typeof value !== "object" || isRef(value)) return flat;
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => `${inner}${formatValue(v, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatValue(v, inner)},`).join("\n")}\n${indent}}`;
}

function inline(value: unknown): string {
  if (value === SENSITIVE) return SENSITIVE;
  if (isRef(value)) return KNOWN_AFTER_APPLY;
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}
