/**
 * One resource or module of the configuration while it is being loaded: where it was written, its
 * fields after interpolation, and an index from every field (JSON pointer) to its position, which
 * the schema stage and the rules use to point at the offending text.
 *
 * The validation of this folder (./schema-check.ts, ./rules/) works on entries, whoever made them: the
 * YAML and CDKTF sources (src/config) and the Terraform provider's `ValidateResourceConfig`
 * (src/terraform/validate.ts), which so give the same problems with the same messages.
 */

import type { DesiredResource, ResourceOptions } from "../desired.js";
import type { KindDescriptor } from "../index.js";
import type { MapNode, Position } from "./nodes.js";
import type { ProblemList } from "./problems.js";

/** Where one value (or mapping key) of an entry was written. */
export interface Located {
  /** Position of the value. */
  pos: Position;
  /** Position of its key, when the value sits in a mapping. */
  keyPos?: Position;
  /** Display path of the value, e.g. `api_keys.ci.metadata`. */
  path: string;
}

/** Where the values of an entry were written, by JSON pointer (a `Map` is one). */
export interface PositionIndex {
  /** The location of the value at `pointer`; undefined when the entry has no value there. */
  get(pointer: string): Located | undefined;
}

/** A `${ref:<collection>.<name>}` value. */
export interface RefUse {
  /** JSON pointer of the value inside the entry's fields (`/destination_ids/0`). */
  pointer: string;
  /** The address it names, as written. */
  target: string;
}

/** A resource or module found in a configuration file. */
export interface Entry {
  /** `api_keys.ci`, `edges.tls.edgtls_1.backend`. */
  address: string;
  kind: KindDescriptor;
  /** Where the entry is written (its name, or its module key). */
  keyPos: Position;
  /** The mapping of its fields and options as written. */
  body: MapNode;
  /** Modules: path parameters (`edge_id`, `route_id`). */
  pathParams?: Record<string, string>;
  /** Interpolated API fields: `${env:}`/`${file:}` substituted, `${ref:}` as RefValue. */
  fields: Record<string, unknown>;
  options: ResourceOptions;
  refs: RefUse[];
  /** JSON pointer (relative to `fields`, "" for the entry) to where it was written. */
  index: PositionIndex;
  /** JSON pointers of values read from a `${file:}`, with the display path of the file. */
  fromFile: ReadonlyMap<string, string>;
  /** JSON pointers of values that contain text from `${env:}` (never quoted in messages). */
  fromEnv: ReadonlySet<string>;
}

/** JSON pointer of `key` inside `parent` (RFC 6901 escaping, as Ajv's `instancePath`). */
export function pointerChild(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}/${key}`;
  // Most keys need no escaping: no regular expression run for them (one per field of every entry).
  if (!key.includes("~") && !key.includes("/")) return `${parent}/${key}`;
  return `${parent}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** The nearest indexed location at or above `pointer` (a missing field points at its parent). */
export function locate(entry: Entry, pointer: string): Located {
  let p = pointer;
  for (;;) {
    const found = entry.index.get(p);
    if (found) return found;
    if (p === "") return { pos: entry.keyPos, path: entry.address };
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

/**
 * Whether a problem was already reported about the value at `pointer` of `entry` (or inside it), so
 * that a rule does not pile a second one on it. While there are no problems, no position is looked up.
 */
export function hasProblemAt(problems: ProblemList, entry: Entry, pointer: string): boolean {
  if (problems.size === 0) return false;
  const loc = entry.index.get(pointer);
  return loc !== undefined && problems.has(loc.path);
}

/**
 * Reports a problem about the value at `pointer` of `entry` (at its key with `atKey`, e.g. for an
 * unknown field). A pointer that does not exist (a missing required field) is reported at the
 * nearest parent, with `missing` appended to the path.
 */
export function reportAt(
  problems: ProblemList,
  entry: Entry,
  pointer: string,
  message: string,
  opts: { atKey?: boolean; path?: string } = {},
): void {
  const loc = locate(entry, pointer);
  const pos = opts.atKey && loc.keyPos ? loc.keyPos : loc.pos;
  problems.add(pos, opts.path ?? loc.path, message);
}

/** The desired-state resource of a loaded entry. */
export function toDesired(entry: Entry): DesiredResource {
  // By assignment, in this property order: a typed literal with conditional spreads made
  // `tgw validate` of 10,000 resources 5-10 % slower (bench/README.md, 2026-11-28).
  const resource = {
    address: entry.address,
    kind: entry.kind.kind,
    fields: entry.fields,
    options: entry.options,
  } as DesiredResource;
  if (entry.pathParams) resource.pathParams = entry.pathParams;
  resource.dependsOn = entry.refs.length === 0 ? [] : [...new Set(entry.refs.map((r) => r.target))].sort();
  resource.source = entry.keyPos;
  if (entry.fromEnv.size > 0) resource.sensitive = [...entry.fromEnv].sort();
  return resource;
}
