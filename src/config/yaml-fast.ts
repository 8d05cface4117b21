/**
 * The fast path of stage 1 (./source.ts): the common configuration file (block and flow mappings,
 * sequences and scalars; no anchors, aliases, tags, merge keys, explicit keys or `---` markers) parsed
 * by `js-yaml`, about ten times faster than the `yaml` package, into the same positioned tree.
 *
 * Positions come from js-yaml's node events. Anything this path does not handle, or any doubt (an
 * exception, a duplicate key, a node tree that does not match js-yaml's own result), returns undefined
 * and the caller parses the file with the `yaml` package, which finds and places every problem. So the
 * fast path never reports a problem and never decides one: it only skips work for files that have none.
 * test/config/yaml-fast.test.ts checks that both paths give the same tree, positions included.
 */
import jsYaml from "js-yaml";
import type { MapEntry, Node, Position, ScalarNode } from "./source.js";
import { resolvePlain } from "./yaml-direct.js";

/** YAML 1.2 core schema: the one the `yaml` package uses (no timestamps, no binary, no merge here). */
const SCHEMA = jsYaml.CORE_SCHEMA;

interface Frame {
  start: number;
  /** Made at the first kid: most nodes are scalars, which have none. */
  kids: Node[] | undefined;
  /** Where each kid's text starts. */
  kidStarts: number[] | undefined;
}

const NO_KIDS: readonly Node[] = Object.freeze([]);

class Unsupported extends Error {}

/**
 * Parses `text` when it is within the fast path's subset.
 * @param file display path used in positions
 * @param maxNodes, maxDepth the same bounds as the full parser; beyond them, undefined
 * @returns the root node of every non-empty document, or undefined: parse it with the full parser
 */
export function parseYamlFast(
  file: string,
  text: string,
  maxNodes: number,
  maxDepth: number,
): Node[] | undefined {
  // Document markers; a comment right after a quote or bracket (`"a"#x`), which js-yaml accepts and
  // YAML does not; and `?` as an indicator (an explicit key, also inside a flow collection).
  if (/^(---|\.\.\.|%)/m.test(text) || /["'\]}]#/.test(text) || /(^|[\s[{,])\?(\s|$)/m.test(text)) {
    return undefined;
  }
  const lines = lineStarts(text);
  const at = (offset: number): Position => positionOf(file, lines, offset);
  const stack: Frame[] = [];
  const roots: Node[] = [];
  let count = 0;
  let result: unknown;
  try {
    // js-yaml 4.3 reads maxDepth and keeps the anchor on its state; @types/js-yaml 4.0 lists neither.
    const options: jsYaml.LoadOptions & { maxDepth: number } = {
      schema: SCHEMA,
      maxDepth: maxDepth + 2,
      listener(event, state: jsYaml.State & { anchor?: string | null }) {
        if (event === "open") {
          stack.push({ start: state.position, kids: undefined, kidStarts: undefined });
          return;
        }
        const frame = stack.pop();
        if (frame === undefined || ++count > maxNodes) throw new Unsupported();
        const start = seek(text, frame.start);
        const lead = text[start];
        if (lead === "&" || lead === "*" || lead === "!" || lead === "?" || (state.anchor ?? null) !== null) {
          throw new Unsupported();
        }
        if (state.kind === "scalar" && lead !== "|" && lead !== ">") {
          const source = text.slice(start, state.position).trim();
          // js-yaml accepts a scalar's next line with less indentation than YAML allows (`k: "a\` then
          // `b"` at column 0), which the `yaml` package reports: such scalars go there.
          if (source.includes("\n")) throw new Unsupported();
          // js-yaml's core schema reads `0b11` as a number, drops the sign of `-0` and reads `-.5` as a
          // string: a plain scalar's value must be the one the `yaml` package reads from the same text.
          if (lead !== '"' && lead !== "'") {
            if (source !== "" && !Object.is(resolvePlain(source), state.result)) throw new Unsupported();
            if (tightCommentAbove(text, start)) throw new Unsupported();
          }
        }
        // A block scalar with an indentation indicator (`|2`): js-yaml and YAML may end it differently.
        if ((lead === "|" || lead === ">") && /^[|>][-+]?[0-9]/.test(text.slice(start, start + 3))) {
          throw new Unsupported();
        }
        // A flow collection over several lines: js-yaml accepts lines less indented than YAML allows.
        if ((lead === "[" || lead === "{") && text.slice(start, state.position).includes("\n")) {
          throw new Unsupported();
        }
        // An empty value is placed past the spaces and tabs after its `:` (at the end of the text,
        // js-yaml's position is before them).
        let raw = frame.start;
        while (text.charCodeAt(raw) === 0x20 || text.charCodeAt(raw) === 0x09) raw++;
        // js-yaml composes a block sequence's item twice, one call inside the other: keep the inner node,
        // unless the inner call found nothing and the outer one a value (a block scalar item, `- |`).
        const inner = frame.kids?.length === 1 && frame.kidStarts?.[0] === start ? frame.kids[0] : undefined;
        const node =
          inner !== undefined && !("empty" in inner && state.result != null)
            ? inner
            : build(state.kind, state.result, inner ? NO_KIDS : (frame.kids ?? NO_KIDS), start, raw, at);
        const parent = stack[stack.length - 1];
        if (parent) {
          if (parent.kids === undefined || parent.kidStarts === undefined) {
            parent.kids = [node];
            parent.kidStarts = [start];
          } else {
            parent.kids.push(node);
            parent.kidStarts.push(start);
          }
        } else {
          roots.push(node);
        }
      },
    };
    result = jsYaml.load(text, options);
  } catch {
    return undefined;
  }
  if (stack.length !== 0 || roots.length > 1) return undefined;
  const root = roots[0];
  // An empty file has no document; `null` alone is left to the full parser.
  if (result === undefined) return /\S/.test(text.replace(/#.*$/gm, "")) ? undefined : [];
  if (root === undefined || result === null) return undefined;
  return [root];
}

/**
 * Whether the plain scalar at `start` begins its line and a comment line whose `#` is followed by text
 * (`#x`), less indented than the scalar, lies above it with only blank and comment lines between. The
 * `yaml` package misreads a value placed so (./yaml-direct.ts `tightComment`); keys are caught too.
 */
function tightCommentAbove(text: string, start: number): boolean {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  for (let i = lineStart; i < start; i++) if (text.charCodeAt(i) !== 0x20) return false;
  const col = start - lineStart;
  let end = lineStart - 1; // the line break ending the line above
  while (end > 0) {
    const begin = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(begin, end);
    const content = line.trimStart();
    if (content !== "") {
      if (content.charCodeAt(0) !== 0x23) return false;
      const next = content.charCodeAt(1);
      if (line.length - content.length < col && content.length > 1 && next !== 0x20) return true;
    }
    end = begin - 1;
  }
  return false;
}

function build(
  kind: string | null,
  value: unknown,
  kids: readonly Node[],
  start: number,
  rawStart: number,
  at: (offset: number) => Position,
): Node {
  if (kind === "mapping") return buildMap(value, kids, at(start));
  if (kind === "sequence") {
    if (!Array.isArray(value) || value.length !== kids.length) throw new Unsupported();
    return { type: "seq", items: kids === NO_KIDS ? [] : (kids as Node[]), pos: at(start) };
  }
  if (kids.length !== 0) throw new Unsupported();
  if (value !== null && typeof value === "object") throw new Unsupported();
  const scalar = value === undefined ? null : (value as string | number | boolean | null);
  // A value with no text at all (`key:` then a newline) is placed where it would start, as the full
  // parser does; an empty key is left to the full parser.
  const empty = kind === null && scalar === null;
  if (!empty) return { type: "scalar", value: scalar, pos: at(start) };
  const marked: ScalarNode & { empty: true } = { type: "scalar", value: scalar, pos: at(rawStart), empty };
  return marked;
}

function buildMap(value: unknown, kids: readonly Node[], pos: Position): Node {
  if (value === null || typeof value !== "object" || Array.isArray(value) || kids.length % 2 !== 0) {
    throw new Unsupported();
  }
  const record = value as Record<string, unknown>;
  const entries: MapEntry[] = [];
  for (let i = 0; i < kids.length; i += 2) {
    const keyNode = kids[i] as Node;
    let child = kids[i + 1] as Node;
    if (keyNode.type !== "scalar" || keyNode.value === null || "empty" in keyNode) {
      throw new Unsupported();
    }
    const key = String(keyNode.value);
    if (key === "<<" || !Object.hasOwn(record, key)) throw new Unsupported();
    if (child.type === "scalar") {
      if (child.value !== (record[key] ?? null) && !Number.isNaN(child.value)) throw new Unsupported();
      if ("empty" in child) child = { type: "scalar", value: null, pos: child.pos };
    }
    entries.push({ key, keyPos: keyNode.pos, value: child });
  }
  if (entries.length !== Object.keys(record).length) throw new Unsupported();
  return { type: "map", entries, pos };
}

/** The offset where a node's text starts: past spaces, line breaks and comments. */
function seek(text: string, offset: number): number {
  let i = offset;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      i++;
    } else if (c === 0x23 /* # */ && (i === 0 || /\s/.test(text[i - 1] ?? ""))) {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
    } else {
      break;
    }
  }
  return i;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function positionOf(file: string, starts: number[], offset: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { file, line: lo + 1, col: offset - (starts[lo] as number) + 1 };
}
