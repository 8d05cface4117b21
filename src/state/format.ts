/**
 * The state file format (docs/state.md): one JSON document, a `StateSnapshot`, written with 2-space
 * indentation, addresses sorted and record fields in a fixed order, so that it diffs well in Git.
 *
 * The format is closed (no unknown fields) and every digest must be 64 hex digits: a secret cannot be
 * stored by accident under a field of its own or in place of a digest. The engine stores only ids,
 * fingerprints and SHA-256 digests of write-only inputs (docs/design.md section 3.2).
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import * as generated from "./format.gen.js";
import { DIGEST } from "./schema.js";
import { STATE_FORMAT_VERSION } from "./snapshot.js";
import type { StateListing, StateRecord, StateSnapshot } from "./store.js";

export { stateSchema } from "./schema.js";

// Generated from stateSchema by `npm run gen` (src/state/format.gen.ts): no schema compiled per run.
const validator = (generated as Record<string, unknown>).validateState as ValidateFunction;

function validate(value: unknown): ErrorObject[] {
  return validator(value) ? [] : (validator.errors ?? []);
}

/** A private key or certificate request body in PEM: never state material. */
const PEM_SECRET = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * Every reason `value` is not a valid snapshot, as `field: problem` strings (empty when valid):
 * schema errors, a record stored under another address than its own, a private key in any string.
 * @param text the JSON text of `value` (read from the file, or about to be written), searched for keys.
 */
export function snapshotProblems(value: unknown, text: string): string[] {
  const problems = validate(value).map(describeError);
  if (problems.length > 0) return problems;
  const snapshot = value as StateSnapshot;
  for (const [key, record] of Object.entries(snapshot.resources)) {
    if (record.address !== key) {
      problems.push(
        `${fieldName(["resources", key, "address"])}: is "${record.address}", not its key "${key}"`,
      );
    }
  }
  if (PEM_SECRET.test(text)) problems.push("a value holds a PEM private key");
  return problems;
}

/**
 * Parses the text of a state file.
 * @returns the snapshot, or `{problem}` saying what is wrong (`is not valid JSON (line 3, column 5: ...)`,
 * `is not a tgw state: resources["api_keys.a"].fingerprint must be ...`, `was written by a newer tgw ...`,
 * then with `newer`: the state is fine, this tgw is old).
 */
export function parseState(text: string): { snapshot: StateSnapshot } | { problem: string; newer?: true } {
  if (text.trim() === "") return { problem: "is empty" };
  const marker = conflictMarkerLine(text);
  if (marker !== undefined) {
    return { problem: `has Git merge conflict markers (line ${marker}): two states were merged` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `is not valid JSON (${jsonErrorPosition(text, (err as Error).message)})` };
  }
  const version =
    typeof value === "object" && value !== null ? (value as { version?: unknown }).version : undefined;
  if (typeof version === "number" && version > STATE_FORMAT_VERSION) {
    return {
      problem: `was written by a newer tgw (state format version ${version}; this tgw reads version ${STATE_FORMAT_VERSION}): upgrade tgw`,
      newer: true,
    };
  }
  const problems = snapshotProblems(value, text);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join("; ");
    const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
    return { problem: `is not a tgw state: ${shown}${more}` };
  }
  // A version 1 file (before tokenDelivered) holds nothing version 2 reads otherwise: written as 2.
  return { snapshot: { ...(value as StateSnapshot), version: STATE_FORMAT_VERSION } };
}

/**
 * The text of a state file for `snapshot`: 2-space JSON ending with a newline, addresses sorted by code
 * point, record fields in a fixed order, `writeOnly` keys and `dependsOn` sorted. Equal snapshots give
 * equal bytes.
 */
export function serializeState(snapshot: StateSnapshot): string {
  return `${JSON.stringify(orderedSnapshot(snapshot), null, 2)}\n`;
}

/**
 * A deep copy of `snapshot` in file order (see `serializeState`); shares nothing with its input.
 */
export function orderedSnapshot(snapshot: StateSnapshot): StateSnapshot {
  const resources: Record<string, StateRecord> = {};
  for (const address of Object.keys(snapshot.resources).sort(byCodePoint)) {
    resources[address] = orderedRecord(snapshot.resources[address] as StateRecord);
  }
  const ordered: StateSnapshot = {
    version: snapshot.version,
    lineage: snapshot.lineage,
    serial: snapshot.serial,
    stack: snapshot.stack,
    ...(snapshot.api === undefined
      ? {}
      : {
          api: {
            url: snapshot.api.url,
            ...(snapshot.api.key === undefined ? {} : { key: snapshot.api.key }),
          },
        }),
    ...(snapshot.listing === undefined ? {} : { listing: orderedListing(snapshot.listing) }),
    ...(snapshot.claims === undefined ? {} : { claims: orderedClaims(snapshot.claims) }),
    resources,
  };
  return ordered;
}

/** A copy of `claims` with lineages sorted. */
function orderedClaims(claims: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const lineage of Object.keys(claims).sort(byCodePoint)) out[lineage] = claims[lineage] as number;
  return out;
}

/** A copy of `listing` in file order: kinds sorted. */
export function orderedListing(listing: StateListing): StateListing {
  const counts: Record<string, number> = {};
  for (const kind of Object.keys(listing.counts).sort(byCodePoint))
    counts[kind] = listing.counts[kind] as number;
  return { counts, unrecorded: [...listing.unrecorded].sort(byCodePoint) };
}

/** A copy of `r` with its fields in file order (see `serializeState`). */
export function orderedRecord(r: StateRecord): StateRecord {
  const out: StateRecord = {
    address: r.address,
    kind: r.kind,
    id: r.id,
    fingerprint: r.fingerprint,
  } as StateRecord;
  if (r.writeOnly !== undefined) {
    const writeOnly: Record<string, string> = {};
    for (const k of Object.keys(r.writeOnly).sort(byCodePoint)) writeOnly[k] = r.writeOnly[k] as string;
    out.writeOnly = writeOnly;
  }
  if (r.dependsOn !== undefined) out.dependsOn = [...r.dependsOn].sort(byCodePoint);
  const delivered = r.tokenDelivered;
  if (delivered)
    out.tokenDelivered = {
      to: delivered.to,
      ...(delivered.host ? { host: delivered.host } : {}),
      ...(delivered.digest ? { digest: delivered.digest } : {}),
    };
  out.appliedAt = r.appliedAt;
  return out;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `resources["api_keys.a"].writeOnly.private_key_pem` from JSON Pointer segments. */
function fieldName(segments: string[]): string {
  let out = "";
  for (const s of segments) {
    out += /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? (out === "" ? s : `.${s}`) : `[${JSON.stringify(s)}]`;
  }
  return out === "" ? "(the document)" : out;
}

function describeError(e: ErrorObject): string {
  const segments =
    e.instancePath === ""
      ? []
      : e.instancePath
          .slice(1)
          .split("/")
          .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (e.keyword === "required") segments.push(String(e.params.missingProperty));
  if (e.keyword === "additionalProperties") segments.push(String(e.params.additionalProperty));
  const field = fieldName(segments);
  switch (e.keyword) {
    case "required":
      return `${field}: missing`;
    case "additionalProperties":
      return `${field}: unknown field (a state holds only the fields of docs/state.md)`;
    case "pattern":
      return e.params.pattern === DIGEST
        ? `${field}: must be a SHA-256 digest (64 lowercase hex digits)`
        : `${field}: ${e.message}`;
    case "const":
      return `${field}: must be ${JSON.stringify(e.params.allowedValue)}`;
    default:
      return `${field}: ${e.message}`;
  }
}

/**
 * Where and why JSON.parse failed, on one line: `line 3, column 5: <reason>` when V8 gives a position,
 * else V8's reason with the text around the error (`Unexpected token '}' near ..."serial": }`).
 */
function jsonErrorPosition(text: string, message: string): string {
  const m = /at position (\d+)/.exec(message);
  if (!m) {
    const flat = message.replace(/\s+/g, " ");
    const context = /^(.*?), (.*) is not valid JSON$/.exec(flat);
    return context ? `${context[1]} near ${context[2]}` : flat;
  }
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split("\n").length;
  const col = pos - before.lastIndexOf("\n");
  return `line ${line}, column ${col}: ${message.replace(/ in JSON at position \d+.*$/s, "")}`;
}

/** 1-based line of the first Git conflict marker, if any (a state merged by hand in Git). */
function conflictMarkerLine(text: string): number | undefined {
  const m = /^(<{7}|={7}|>{7})( |$)/m.exec(text);
  return m ? text.slice(0, m.index).split("\n").length : undefined;
}
