/**
 * Stage 1 of loading: YAML text to a small tree of positioned nodes. Every scalar, mapping, sequence
 * and mapping key keeps the 1-based line and column where it was written, so each later stage can
 * point at the offending text.
 *
 * Rules:
 * - parsing is the `yaml` package's (YAML 1.2 core schema); aliases are expanded (their nodes keep the
 *   anchor's position, where the text is) and `<<` merge keys are honoured, explicit keys winning;
 * - a key given twice in one mapping is a problem naming both lines (the first one is kept);
 * - a file with a syntax error (or a YAML warning, such as an unknown tag) contributes that first problem
 *   only (later ones are mostly echoes);
 * - several documents in one file (`---`) are several roots; empty documents are skipped.
 *
 * Two paths give the same tree: the direct path (./yaml-direct.ts) for the common subset, block scalars
 * included, and the `yaml` package for what it declines and for every file with a problem, so that
 * problems are found and placed by one parser.
 */
import { createRequire } from "node:module";
import type * as YamlLib from "yaml";
import type { Document } from "yaml";
import type { MapEntry, Node, Position, ScalarNode } from "../model/validation/nodes.js";
import { childPath, itemPath } from "../model/validation/paths.js";
import type { ProblemList } from "../model/validation/problems.js";
import { parseYamlDirect, TooManyNodes } from "./yaml-direct.js";

export type { MapEntry, MapNode, Node, Position, ScalarNode, SeqNode } from "../model/validation/nodes.js";

/** The `yaml` package, loaded the first time a file needs it (most take the direct path). */
let yamlLib: typeof YamlLib | undefined;
const yaml = (): typeof YamlLib => {
  yamlLib ??= createRequire(import.meta.url)("yaml") as typeof YamlLib;
  return yamlLib;
};

/** Text that may leave the direct path: an anchor, alias, tag or explicit key, or a document marker. */
const MAY_NEED_FULL_PARSER = /[&*!?%]|^(?:---|\.\.\.)/m;

/**
 * Loads the `yaml` package ahead of parsing `texts` when one of them may need it. A dynamic import is a
 * chunk of the CLI bundle (scripts/bundle.ts), several times cheaper to load than the package's own
 * modules, which parseYaml otherwise requires when it first needs them (a file with a problem).
 */
export async function preloadYamlParser(texts: readonly string[]): Promise<void> {
  if (yamlLib === undefined && texts.some((text) => MAY_NEED_FULL_PARSER.test(text))) {
    // A CommonJS package: its exports object is the namespace's default, in Node and in the bundle.
    const { default: exports } = (await import("yaml")) as unknown as { default: typeof YamlLib };
    yamlLib = exports;
  }
}

/**
 * Where the quoted scalar that reaches `offset` starts. The YAML parser reports an unterminated quote
 * where the text ends (it reads everything after the quote as the scalar), which is far from the
 * mistake; the opening quote is what to fix. `offset` itself when no quoted scalar reaches it.
 */
function unterminatedStart(text: string, offset: number): number {
  let start = offset;
  const { CST, Parser } = yaml();
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    CST.visit(token, (item) => {
      for (const node of [item.key, item.value]) {
        if (node?.type !== "double-quoted-scalar" && node?.type !== "single-quoted-scalar") continue;
        if (node.offset <= offset && node.offset + node.source.length >= offset) start = node.offset;
      }
    });
  }
  return start;
}

// Aliases can nest; a deeper structure is certainly an alias loop or an attack ("billion laughs").
const MAX_DEPTH = 64;
const MAX_NODES = 200_000;

/**
 * Parses one configuration file.
 *
 * @param file display path, used in positions
 * @param text file contents
 * @param problems receives syntax errors, duplicate keys, unsupported keys
 * @returns the root node of every non-empty document (none when the file has a syntax error)
 */
export function parseYaml(file: string, text: string, problems: ProblemList): Node[] {
  try {
    return parseYamlDirect(file, text, MAX_NODES, MAX_DEPTH) ?? parseYamlFull(file, text, problems);
  } catch (err) {
    if (!(err instanceof TooManyNodes)) throw err;
    problems.add(err.pos, "", TOO_MANY_NODES);
    return [];
  }
}

const TOO_MANY_NODES = `the file holds more than ${MAX_NODES.toLocaleString("en-US")} YAML nodes (keys, values and collections, aliases expanded): split it into several files (-f takes a directory), or expand fewer aliases`;

/** parseYaml with the `yaml` package only (exported for the test that compares both paths). */
export function parseYamlFull(file: string, text: string, problems: ProblemList): Node[] {
  const lib = yaml();
  const lineCounter = new lib.LineCounter();
  const docs = lib.parseAllDocuments(text, {
    lineCounter,
    merge: true,
    uniqueKeys: false,
    prettyErrors: false,
  });
  const at = (offset: number | undefined): Position => {
    const { line, col } = lineCounter.linePos(offset ?? 0);
    return { file, line, col };
  };

  // The first syntax error only: later ones are mostly its echoes. A warning (an unknown tag such as
  // `!true`) is a mistake too: the value would silently be a string.
  const syntaxError = docs.flatMap((doc) => doc.errors)[0];
  const warning = docs.flatMap((doc) => doc.warnings)[0];
  if (syntaxError || warning) {
    const e = (syntaxError ?? warning) as NonNullable<typeof syntaxError | typeof warning>;
    problems.add(
      at(e.code === "MISSING_CHAR" ? unterminatedStart(text, e.pos[0]) : e.pos[0]),
      "",
      `YAML ${syntaxError ? "syntax error" : "problem"}: ${firstLine(e.message)}`,
    );
    return [];
  }

  const converter: Converter = { lib, at, problems, count: 0 };
  const roots: Node[] = [];
  for (const doc of docs) {
    if (doc.contents === null) continue;
    try {
      roots.push(convertNode(converter, doc as Document, doc.contents, "", 0, at(0)));
    } catch (err) {
      if (!(err instanceof TooDeep)) throw err;
      problems.add(err.pos, err.path, err.message);
    }
  }
  return roots;
}

/** What converting the `yaml` package's nodes of one file needs; `count` counts nodes over all its documents. */
interface Converter {
  lib: typeof YamlLib;
  at: (offset: number | undefined) => Position;
  problems: ProblemList;
  count: number;
}

/**
 * One node of the `yaml` package (of `doc`) as ours, aliases expanded; `fallback` positions a node
 * without a range.
 * @throws TooDeep past MAX_NODES nodes in the file or MAX_DEPTH levels.
 */
function convertNode(
  cv: Converter,
  doc: Document,
  node: unknown,
  path: string,
  depth: number,
  fallback: Position,
): Node {
  const { lib, at } = cv;
  if (++cv.count > MAX_NODES || depth > MAX_DEPTH) {
    const reason =
      depth > MAX_DEPTH
        ? `the document nests deeper than ${MAX_DEPTH} levels (an alias that refers to itself?)`
        : TOO_MANY_NODES;
    throw new TooDeep(isNode(node) ? at(node.range?.[0]) : fallback, path, reason);
  }
  if (lib.isAlias(node)) {
    const target = node.resolve(doc);
    return convertNode(cv, doc, target, path, depth + 1, at(node.range?.[0]));
  }
  if (lib.isScalar(node)) return { type: "scalar", value: scalarValue(node.value), pos: at(node.range?.[0]) };
  if (lib.isSeq(node)) {
    return {
      type: "seq",
      pos: at(node.range?.[0]),
      items: node.items.map((item, i) =>
        convertNode(cv, doc, item, itemPath(path, i), depth + 1, at(node.range?.[0])),
      ),
    };
  }
  if (lib.isMap(node)) return convertMap(cv, doc, node, path, depth);
  // Only reachable through aliases to nothing; treat as null.
  return { type: "scalar", value: null, pos: fallback };
}

/**
 * A mapping as ours: merge keys (`<<`) expanded with explicit keys winning; a key that is not a plain
 * string, a repeated key and a merge of a non-mapping are problems, and left out.
 * @throws TooDeep (see convertNode).
 */
function convertMap(cv: Converter, doc: Document, node: YamlLib.YAMLMap, path: string, depth: number): Node {
  const { lib, at, problems } = cv;
  const pos = at(node.range?.[0]);
  const entries: MapEntry[] = [];
  const merged: MapEntry[] = [];
  const firstAt = new Map<string, Position>();
  for (const pair of node.items) {
    if (!lib.isPair(pair)) continue;
    const keyNode = pair.key;
    const keyPos = isNode(keyNode) ? at(keyNode.range?.[0]) : pos;
    if (lib.isScalar(keyNode) && typeof keyNode.value === "symbol") {
      // `<<: *anchor` or `<<: [*a, *b]`: entries of the referenced mappings, explicit keys win.
      const source = convertNode(cv, doc, pair.value, path, depth + 1, keyPos);
      const sources = source.type === "seq" ? source.items : [source];
      for (const s of sources) {
        if (s.type !== "map") {
          problems.add(s.pos, path, "a merge key (<<) takes a mapping or a list of mappings");
          continue;
        }
        merged.push(...s.entries);
      }
      continue;
    }
    if (!lib.isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === "object") {
      problems.add(keyPos, path, "a mapping key must be a plain string");
      continue;
    }
    const key = String(keyNode.value);
    const first = firstAt.get(key);
    if (first) {
      problems.add(
        keyPos,
        childPath(path, key),
        `is given twice in this mapping (first at line ${first.line}, column ${first.col})`,
      );
      continue;
    }
    firstAt.set(key, keyPos);
    const valuePos = isNode(pair.value) ? at(pair.value.range?.[0]) : keyPos;
    const value: Node =
      pair.value === null || pair.value === undefined
        ? { type: "scalar", value: null, pos: keyPos }
        : convertNode(cv, doc, pair.value, childPath(path, key), depth + 1, valuePos);
    entries.push({ key, keyPos, value });
  }
  for (const m of merged) {
    if (!firstAt.has(m.key)) {
      firstAt.set(m.key, m.keyPos);
      entries.push(m);
    }
  }
  return { type: "map", entries, pos };
}

/** A file past MAX_NODES nodes or MAX_DEPTH levels; `message` says which, for the problem list. */
class TooDeep extends Error {
  constructor(
    readonly pos: Position,
    readonly path: string,
    reason: string,
  ) {
    super(reason);
  }
}

function isNode(v: unknown): v is { range?: [number, number, number] | null } {
  return typeof v === "object" && v !== null && "range" in v;
}

function scalarValue(v: unknown): ScalarNode["value"] {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return String(v);
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

/** A human name of a node's type, for messages ("a string", "a list"...). */
export function describeNode(node: Node): string {
  if (node.type === "map") return "a mapping";
  if (node.type === "seq") return "a list";
  const v = node.value;
  if (v === null) return "empty (null)";
  if (typeof v === "string") return "a string";
  if (typeof v === "boolean") return "a boolean";
  return "a number";
}
