/**
 * Stage 3 of loading: from positioned YAML nodes to plain field values, substituting the three
 * interpolations in string values (never in keys):
 *
 * - `${env:NAME}`: the environment variable NAME (secrets), when a configuration may read it
 *   (./env-policy.ts: `TGW_VAR_*` and what the operator allows). Unset is a problem that names the
 *   variable; no value is ever printed, and plans mask every value that holds one.
 * - `${file:PATH}`: the contents of a file, PATH relative to the YAML file that says it (or absolute),
 *   read as UTF-8 with trailing line breaks removed (like `$(cat PATH)` in a shell), regular files
 *   only, within the allowed roots and size (./file-read.ts). Every file read, and every file that
 *   was missing, is recorded for `watch`.
 * - `${ref:<collection>.<name>}`: the id of another managed resource, known only at apply time: it must
 *   be the whole value and stays a `RefValue` (`{ $ref: address }`); the rules check where it may be.
 *
 * `$${` is a literal `${`. Any other `$` is literal. env and file may be embedded in a longer
 * string (`Bearer ${env:TOKEN}`); the result of an interpolation is always a string.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages show the interpolation syntax itself
import { isAbsolute, resolve } from "node:path";
import type { RefValue } from "../model/desired.js";
import { type Entry, type Located, type PositionIndex, pointerChild } from "../model/validation/entry.js";
import { childPath, itemPath } from "../model/validation/paths.js";
import type { ProblemList } from "../model/validation/problems.js";
import { envRefusal } from "./env-policy.js";
import { type FileRead, MAX_FILE_BYTES, readConfinedFile } from "./file-read.js";
import type { MapEntry, Node, Position } from "./source.js";

export { type FileRead, MAX_FILE_BYTES };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SYNTAX = "${env:NAME}, ${file:PATH} or ${ref:COLLECTION.NAME} (write $${ for a literal ${)";

/** What interpolation needs from its surroundings. */
export interface InterpolationContext {
  env: Record<string, string | undefined>;
  /** Absolute directory of a configuration file, by its display path. */
  dirOf: (file: string) => string;
  /** Display path of an absolute path (relative to the working directory when inside it). */
  display: (abs: string) => string;
  /** Receives the absolute path of every file `${file:}` names. */
  filesRead: Set<string>;
  /** Directories `${file:}` may read under (./file-read.ts > fileRoots). */
  fileRoots: readonly string[];
  /** Files already read during this load, by absolute path. */
  fileCache: Map<string, FileRead>;
  /**
   * Absolute and display paths of `${file:}` arguments already seen in this load, by the directory
   * they are relative to and the argument (a PEM named by thousands of objects is resolved once).
   */
  filePaths?: Map<string, { abs: string; shown: string }>;
  problems: ProblemList;
}

/** The fields of an entry, the index of their positions, the refs and the file-sourced values. */
export type Interpolated = Pick<Entry, "fields" | "index" | "refs" | "fromFile" | "fromEnv">;

/**
 * Of most entries: no value read from a file or the environment. Shared, so that an entry gets its own
 * Map and Set only with such a value (two per resource were a sixth of a large load's allocations).
 */
const NO_FILES: ReadonlyMap<string, string> = new Map();
const NO_ENV: ReadonlySet<string> = new Set();

/** Records that the value at `pointer` holds the text of `file` (display path). */
export function noteFromFile(out: Interpolated, pointer: string, file: string): void {
  if (out.fromFile === NO_FILES) out.fromFile = new Map();
  (out.fromFile as Map<string, string>).set(pointer, file);
}

/** Records that the value at `pointer` holds text from the environment. */
export function noteFromEnv(out: Interpolated, pointer: string): void {
  if (out.fromEnv === NO_ENV) out.fromEnv = new Set();
  (out.fromEnv as Set<string>).add(pointer);
}

/** Converts one string scalar at `pointer` (display path `path`), recording refs and sources in `out`. */
export type StringConverter = (
  value: string,
  node: Node,
  pointer: string,
  path: string,
  out: Interpolated,
) => unknown;

/**
 * Converts the API fields of an entry to plain values, indexing the position of every value under
 * its JSON pointer. Sources differ only in how a string is read (`${...}` in YAML, Terraform
 * expressions in a synthesized stack): `convertString`, called only for strings `mayConvert` accepts
 * (the others are kept as they are).
 * @param basePath display path of the entry (its address, or a construct path)
 */
export function convertFields(
  fieldEntries: MapEntry[],
  entryPos: Position,
  basePath: string,
  convertString: StringConverter,
  mayConvert: (value: string) => boolean,
): Interpolated {
  const out: Interpolated = {
    fields: {},
    index: new NodeIndex(fieldEntries, entryPos, basePath),
    refs: [],
    fromFile: NO_FILES,
    fromEnv: NO_ENV,
  };
  // The pointer and display path of a value are made only for a collection or a string that may
  // convert: most values are neither, and these strings were two of the load's allocations per value.
  const convert = (node: Node, parentPointer: string, parentPath: string, key: string | number): unknown => {
    if (node.type === "scalar") {
      const value = node.value;
      if (typeof value !== "string" || !mayConvert(value)) return value;
      return convertString(value, node, pointerChild(parentPointer, key), pathOf(parentPath, key), out);
    }
    const pointer = pointerChild(parentPointer, key);
    const path = pathOf(parentPath, key);
    if (node.type === "seq") return node.items.map((item, i) => convert(item, pointer, path, i));
    const obj: Record<string, unknown> = {};
    for (const e of node.entries) obj[e.key] = convert(e.value, pointer, path, e.key);
    return obj;
  };
  for (const e of fieldEntries) out.fields[e.key] = convert(e.value, "", basePath, e.key);
  return out;
}

/**
 * The positions of an entry's values, found in its YAML nodes when asked: only a problem or a rule
 * reads one, so no location is kept for the other values (one per value of every entry, most of
 * the load's retained objects). Answers what a map filled while converting would hold: the value's
 * position, its key's position in a mapping, and its display path.
 */
class NodeIndex implements PositionIndex {
  constructor(
    private readonly entries: readonly MapEntry[],
    private readonly entryPos: Position,
    private readonly basePath: string,
  ) {}

  get(target: string): Located | undefined {
    if (target === "") return { pos: this.entryPos, path: this.basePath };
    let entries: readonly MapEntry[] | undefined = this.entries;
    let items: readonly Node[] | undefined;
    let pointer = "";
    let path = this.basePath;
    for (;;) {
      let found: { node: Node; keyPos?: Position; pointer: string; path: string } | undefined;
      if (entries) {
        // The last entry of a key wins, as when a map was filled in order.
        for (const e of entries) {
          const p = pointerChild(pointer, e.key);
          if (p === target || target.startsWith(`${p}/`))
            found = { node: e.value, keyPos: e.keyPos, pointer: p, path: childPath(path, e.key) };
        }
      } else if (items) {
        const segment = target.slice(pointer.length + 1).split("/")[0] as string;
        const i = Number(segment);
        const item = String(i) === segment ? items[i] : undefined;
        if (item) found = { node: item, pointer: pointerChild(pointer, i), path: itemPath(path, i) };
      }
      if (!found) return undefined;
      if (found.pointer === target) {
        const { node, keyPos } = found;
        return keyPos === undefined
          ? { pos: node.pos, path: found.path }
          : { pos: node.pos, keyPos, path: found.path };
      }
      ({ pointer, path } = found);
      entries = found.node.type === "map" ? found.node.entries : undefined;
      items = found.node.type === "seq" ? found.node.items : undefined;
      if (!entries && !items) return undefined;
    }
  }
}

/**
 * Converts the API fields of an entry (`fieldEntries`: the body without options) to plain values,
 * with `${env:}`, `${file:}` and `${ref:}` substituted.
 * @param basePath display path of the entry (its address)
 */
export function interpolateFields(
  fieldEntries: MapEntry[],
  entryPos: Position,
  basePath: string,
  ctx: InterpolationContext,
): Interpolated {
  return convertFields(
    fieldEntries,
    entryPos,
    basePath,
    (value, node, pointer, path, out) => {
      const result = interpolateString(value, node.pos, path, ctx);
      if (result.file) noteFromFile(out, pointer, result.file);
      if (result.env) noteFromEnv(out, pointer);
      if (typeof result.value !== "string") out.refs.push({ pointer, target: result.value.$ref });
      return result.value;
    },
    mayInterpolate,
  );
}

/** Whether interpolateString may change `value`: only a string with a `$` can. */
const mayInterpolate = (value: string): boolean => value.includes("$");

/** The display path of a mapping's key or a list's item under `parent`. */
const pathOf = (parent: string, key: string | number): string =>
  typeof key === "number" ? itemPath(parent, key) : childPath(parent, key);

/**
 * Interpolates one string written at `pos`. On a problem the failing part is replaced by "" (the
 * problem is reported; later stages skip the path).
 * @returns the string, or a RefValue when the whole string is `${ref:...}`; `file` names the last
 *   file read into it; `env` is true when it holds text from the environment
 */
export function interpolateString(
  raw: string,
  pos: Position,
  path: string,
  ctx: InterpolationContext,
): { value: string | RefValue; file?: string; env?: boolean } {
  if (!raw.includes("$")) return { value: raw }; // most strings: nothing to substitute
  const parts: string[] = [];
  let file: string | undefined;
  let env = false;
  let i = 0;
  while (i < raw.length) {
    const dollar = raw.indexOf("$", i);
    if (dollar < 0) {
      parts.push(raw.slice(i));
      break;
    }
    parts.push(raw.slice(i, dollar));
    if (raw.startsWith("$${", dollar)) {
      parts.push("${");
      i = dollar + 3;
      continue;
    }
    if (raw[dollar + 1] !== "{") {
      parts.push("$");
      i = dollar + 1;
      continue;
    }
    const end = raw.indexOf("}", dollar + 2);
    if (end < 0) {
      ctx.problems.add(pos, path, `unterminated \${: expected ${SYNTAX}`);
      return { value: "" };
    }
    const expr = raw.slice(dollar + 2, end);
    const colon = expr.indexOf(":");
    const fn = colon < 0 ? expr : expr.slice(0, colon);
    const arg = colon < 0 ? "" : expr.slice(colon + 1);
    i = end + 1;
    if (fn === "ref" && colon >= 0) {
      if (dollar !== 0 || end !== raw.length - 1) {
        ctx.problems.add(pos, path, "a ${ref:...} must be the whole value, not part of a string");
        return { value: "" };
      }
      return { value: refValue(arg, pos, path, ctx) };
    }
    if (fn === "env" && colon >= 0) {
      const value = envValue(arg, pos, path, ctx);
      parts.push(value ?? "");
      if (value !== undefined) env = true;
      continue;
    }
    if (fn === "file" && colon >= 0) {
      const read = fileValue(arg, pos, path, ctx);
      if (read === undefined) continue;
      file = read.shown;
      parts.push(read.text);
      continue;
    }
    // Only the name before the colon: the rest may be part of a secret written inline.
    const shown = /^[A-Za-z_]\w{0,20}$/.test(fn) ? `\${${fn}${colon >= 0 ? ":..." : ""}}` : "${...}";
    ctx.problems.add(pos, path, `unknown interpolation ${shown}: expected ${SYNTAX}`);
  }
  const result: { value: string; file?: string; env?: boolean } = { value: parts.join("") };
  if (file !== undefined) result.file = file;
  if (env) result.env = env;
  return result;
}

/** The `${ref:COLLECTION.NAME}` of `arg`; a malformed one is a problem, and "". */
function refValue(arg: string, pos: Position, path: string, ctx: InterpolationContext): string | RefValue {
  if (!/^[^.\s]+\.[^.\s]+$/.test(arg)) {
    ctx.problems.add(
      pos,
      path,
      "a reference is written ${ref:COLLECTION.NAME}, e.g. ${ref:tunnel_group_backends.web}",
    );
    return "";
  }
  return { $ref: arg };
}

/**
 * The value of `${env:arg}`; undefined, with a problem, for a bad name, a variable refused (see
 * envRefusal) or one not set.
 */
function envValue(arg: string, pos: Position, path: string, ctx: InterpolationContext): string | undefined {
  if (!ENV_NAME.test(arg)) {
    ctx.problems.add(pos, path, "${env:NAME} needs a variable name of letters, digits and _");
    return undefined;
  }
  const refused = envRefusal(arg, ctx.env);
  if (refused !== undefined) {
    ctx.problems.add(pos, path, refused);
    return undefined;
  }
  const value = ctx.env[arg];
  if (value === undefined) ctx.problems.add(pos, path, `environment variable ${arg} is not set`);
  return value;
}

/**
 * The text of `${file:arg}` and how its path is shown, the file recorded in `ctx.filesRead`;
 * undefined, with a problem, for an empty path or a file that cannot be read.
 */
function fileValue(
  arg: string,
  pos: Position,
  path: string,
  ctx: InterpolationContext,
): { text: string; shown: string } | undefined {
  if (arg.trim() === "") {
    ctx.problems.add(pos, path, "${file:PATH} needs a path");
    return undefined;
  }
  const { abs, shown } = filePath(arg, pos, ctx);
  ctx.filesRead.add(abs);
  const read = readText(abs, ctx);
  if ("error" in read) {
    ctx.problems.add(pos, path, `cannot read \${file:${arg}}: ${read.error} (${shown})`);
    return undefined;
  }
  return { text: read.text, shown };
}

/** The absolute path of a `${file:}` argument written at `pos`, and how it is shown. */
function filePath(arg: string, pos: Position, ctx: InterpolationContext): { abs: string; shown: string } {
  const dir = isAbsolute(arg) ? "" : ctx.dirOf(pos.file);
  const key = `${dir}\0${arg}`;
  const hit = ctx.filePaths?.get(key);
  if (hit) return hit;
  const abs = dir === "" ? arg : resolve(dir, arg);
  const found = { abs, shown: ctx.display(abs) };
  ctx.filePaths?.set(key, found);
  return found;
}

/** The text of a file as `${file:}` reads it (cached in `ctx.fileCache`; at most `MAX_FILE_BYTES`). */
export function readText(abs: string, ctx: Pick<InterpolationContext, "fileCache" | "fileRoots">): FileRead {
  const hit = ctx.fileCache.get(abs);
  if (hit) return hit;
  const read = readConfinedFile(abs, ctx.fileRoots);
  ctx.fileCache.set(abs, read);
  return read;
}
