/**
 * YAML documents for the differential tests of the configuration's parse paths
 * (test/config/yaml-direct.test.ts): the direct path's tree must equal the `yaml` package's, positions
 * included, for every text it takes. Documents come in several writers' styles, as a person writes
 * them (block scalars among them), and with random edits (where a parser that accepts too much shows).
 */
import fc from "fast-check";
import { expect } from "vitest";
import { isCollection, parseDocument, stringify, visit } from "yaml";
import { type Node, parseYamlFull } from "../../src/config/source.js";
import { ProblemList } from "../../src/model/validation/problems.js";

/**
 * Texts the `yaml` package (the reference) misreads, so that every faster path must decline them: a
 * plain value below its key with a `#x` comment line, no deeper than the key, between. It reads
 * "v e" as a key (an error) or "v - e" as the value (silently).
 */
export const MISREAD_BY_YAML = ["a:\n#n\n v\ne: 1\n", "- a:\n#n\n   v\n- e\n"];

/** A parse path under test: its tree, or undefined when it declines the text. */
export type ParsePath = (text: string) => Node[] | undefined;

/**
 * Checks that `parse` agrees with the full parser on `text` (no problem there, the same tree), unless
 * it declined; returns whether it took the text.
 */
export function agreesWithFull(parse: ParsePath, text: string): boolean {
  const answer = parse(text);
  if (answer === undefined) return false;
  const problems = new ProblemList();
  const reference = parseYamlFull("f.yaml", text, problems);
  expect(problems.items, JSON.stringify(text)).toEqual([]);
  expect(plainTree(answer), JSON.stringify(text)).toEqual(reference);
  return true;
}

/**
 * `nodes` as plain objects, each position read (`pos`, `keyPos`): the direct path's nodes make their
 * positions when read (src/config/yaml-direct.ts), so their own properties are not the full parser's.
 */
export function plainTree(nodes: readonly Node[]): Node[] {
  const plain = (node: Node): Node => {
    if (node.type === "scalar") return { type: "scalar", value: node.value, pos: node.pos };
    if (node.type === "seq") return { type: "seq", items: node.items.map(plain), pos: node.pos };
    const entries = node.entries.map((e) => ({ key: e.key, keyPos: e.keyPos, value: plain(e.value) }));
    return { type: "map", entries, pos: node.pos };
  };
  return nodes.map(plain);
}

/** Checks `agreesWithFull` on `numRuns` texts of `texts`; how many of them `parse` took. */
export function takenOf(parse: ParsePath, texts: fc.Arbitrary<string>, numRuns: number): number {
  let taken = 0;
  fc.assert(
    fc.property(texts, (text) => {
      if (agreesWithFull(parse, text)) taken++;
    }),
    { numRuns },
  );
  return taken;
}

/** Text edits that reach the corners of YAML's grammar. */
const EDIT_CHARS = [
  " ",
  "  ",
  "\n",
  ":",
  ": ",
  "-",
  "- ",
  "#",
  " #",
  "'",
  '"',
  "[",
  "]",
  "{",
  "}",
  ",",
  "&a ",
  "*a",
  "!",
  "|",
  ">",
  "?",
  "\\",
  "x",
  "0",
  ".",
  "~",
  "é",
];

const key = fc.oneof(
  fc.stringMatching(/^[a-z_][a-z0-9_./-]{0,8}$/),
  fc.constantFrom("n", "env", "true", "null", "1", "-x", "a b", "a:b", "é", "<<", "~", "0x1"),
);
const tricky = fc.constantFrom(
  "",
  " ",
  "null",
  "~",
  "True",
  "yes",
  "0o17",
  "0x1g",
  "1e3",
  ".inf",
  "-.5",
  "+1",
  "1_0",
  "a: b",
  "a #b",
  "#x",
  "- x",
  "'q'",
  '"dq"',
  "back\\slash",
  "tab\t",
  "line\nbreak",
  "[x]",
  "{x}",
  "x,y",
  "é€",
  "\u2028",
  "*a",
  "&a",
  "!t",
  "%",
  "@",
  "`",
  "\u00a0x\u00a0",
  "\u3000",
  "x\u200b",
  // Multi-line text, as block scalars hold it: every chomping, leading blanks, deeper lines.
  "a\n",
  "a\nb",
  "a\n\n",
  "\na\n",
  "a\n\n\nb\n",
  " a\nb\n",
  "a\n  b\nc",
  "a\n\n b\n\nc\n\n",
  "# x\n  y: z\n",
  "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n+/=\n-----END CERTIFICATE-----\n",
);
const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  tricky,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("map")),
  list: fc.array(tie("node"), { maxLength: 4 }),
  map: fc.dictionary(key, tie("node"), { maxKeys: 4 }),
}));
/** A configuration's root is a mapping or a list (a scalar alone is left to the full parser). */
const value = fc.oneof(tree.map, tree.list);

/** `value` written in block style with its collections from depth 2 on in flow style. */
function flowLeaves(value: unknown): string {
  const doc = parseDocument(stringify(value));
  visit(doc, {
    Collection(_, node, path) {
      if (path.filter(isCollection).length >= 2) node.flow = true;
    },
  });
  return doc.toString();
}

/** A document in one of several writers' styles. */
export const document = fc
  .tuple(
    value,
    fc.constantFrom("block", "flow", "single-quoted", "flow-leaves", "indent-4", "literal", "folded"),
  )
  .map(([doc, style]) => {
    if (style === "single-quoted") return stringify(doc, { singleQuote: true });
    if (style === "flow-leaves") return flowLeaves(doc);
    if (style === "indent-4") return stringify(doc, { indent: 4, indentSeq: false });
    if (style === "literal") return stringify(doc, { blockQuote: "literal", indent: 3 });
    if (style === "folded")
      return stringify(doc, { blockQuote: "folded", lineWidth: 20, minContentWidth: 0 });
    return stringify(doc, { collectionStyle: style === "flow" ? "flow" : "block" });
  });

/**
 * A document as a person might write it, from a value and a stream of choices: block or flow
 * collections, plain, single- or double-quoted scalars (plain ones written raw, so not always what
 * the value says: the full parser is the reference, not the value), indentation of 1 to 4 spaces,
 * comments and blank lines.
 */
function handWritten(value: unknown, choices: number[], blockScalarEvery = 5): string {
  let n = 0;
  const pick = (k: number) => (choices[n++ % choices.length] as number) % k;
  const scalarText = (v: unknown): string => {
    const raw = v === null ? "null" : String(v);
    const style = pick(4);
    if (style === 0) return JSON.stringify(raw);
    if (style === 1) return `'${raw.replaceAll("'", "''")}'`;
    return raw;
  };
  const keyText = (k: string) => [k, JSON.stringify(k), `'${k.replaceAll("'", "''")}'`][pick(3)] as string;
  const comment = () => ["", "", "", " # note", "  #x"][pick(5)] as string;
  const flow = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(flow).join([", ", ",", " , "][pick(3)])}]`;
    if (v !== null && typeof v === "object") {
      const pairs = Object.entries(v).map(([k, x]) => `${keyText(k)}:${[" ", "  "][pick(2)]}${flow(x)}`);
      return `{${[" ", ""][pick(2)]}${pairs.join(", ")}${[" ", ""][pick(2)]}}`;
    }
    return scalarText(v);
  };
  const lines: string[] = [];
  /**
   * `text` as a block scalar below `head` (a key or a `-` at column `indent`): either style, any
   * chomping, an indentation indicator or not, content 1 to 4 columns deeper, blank lines with or
   * without spaces, a comment after the header or below the scalar.
   */
  const blockScalar = (head: string, text: string, indent: number): void => {
    const extra = 1 + pick(4);
    const given = pick(4) === 0;
    const indicators = [given ? String(extra) : "", ["", "-", "+"][pick(3)] as string];
    if (pick(2) === 0) indicators.reverse();
    lines.push(`${head} ${[">", "|"][pick(2)]}${indicators.join("")}${["", " # header", "  #"][pick(3)]}`);
    const pad = " ".repeat(indent + extra);
    for (const line of text.split("\n")) {
      const blank = line === "" ? " ".repeat(pick(3) === 0 ? pick(indent + extra + 2) : 0) : undefined;
      lines.push(blank ?? `${pad}${line}`);
    }
    if (pick(4) === 0) lines.push(["", `${" ".repeat(pick(indent + 1))}# below`][pick(2)] as string);
  };
  const block = (v: unknown, indent: number, lead: string): void => {
    const isList = Array.isArray(v);
    const entries: [string, unknown][] = isList
      ? (v as unknown[]).map((x) => ["", x])
      : Object.entries(v as Record<string, unknown>);
    entries.forEach(([k, x], i) => {
      if (pick(8) === 0) lines.push(["", `${" ".repeat(pick(6))}# between`][pick(2)] as string);
      const prefix = i === 0 ? lead : " ".repeat(indent);
      const head = isList ? `${prefix}-` : `${prefix}${keyText(k)}:`;
      const collection = x !== null && typeof x === "object";
      const nested = collection && Object.keys(x).length > 0;
      if (!collection && pick(blockScalarEvery) === 0) {
        blockScalar(head, String(x), indent);
      } else if (!nested || pick(3) === 0) {
        lines.push(`${head}${[" ", "  "][pick(2)]}${collection ? flow(x) : scalarText(x)}${comment()}`);
      } else if (isList && pick(2) === 0) {
        block(x, indent + 2, `${head} `); // compact: `- key: value` or `- - item`
      } else {
        lines.push(`${head}${comment()}`);
        const deeper = indent + 1 + pick(4);
        block(x, Array.isArray(x) && !isList && pick(2) === 0 ? indent : deeper, " ".repeat(deeper));
      }
    });
  };
  if (Object.keys(value as object).length === 0) return flow(value);
  block(value, 0, "");
  return `${lines.join("\n")}${["\n", "", "\n\n"][pick(3)]}`;
}

/** A document written the way people write them (`handWritten`). */
export const handWrittenDocument = fc
  .tuple(value, fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 64 }))
  .map(([doc, choices]) => handWritten(doc, choices));

/** Lines of the text block scalars hold: a PEM's, blank or spaces only, deeper, YAML-looking. */
const blockLine = fc.constantFrom(
  "-----BEGIN CERTIFICATE-----",
  "MIIBszCCAVmgAwIBAgIUX2+/=",
  "-----END CERTIFICATE-----",
  "",
  "",
  " ",
  "   ",
  "  deeper",
  " x y ",
  "# not a comment",
  "k: v",
  "- item",
  "|",
  "> x",
  "'q' \"dq\"",
  "é€",
);
const blockText = fc.array(blockLine, { maxLength: 6 }).map((lines) => lines.join("\n"));
const blockTree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, blockText, blockText, tie("list"), tie("map")),
  list: fc.array(tie("node"), { minLength: 1, maxLength: 3 }),
  map: fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), tie("node"), { minKeys: 1, maxKeys: 3 }),
}));

/** A document whose every scalar is a block scalar written by hand (`handWritten`). */
export const blockScalarDocument = fc
  .tuple(
    fc.oneof(blockTree.map, blockTree.list),
    fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 64 }),
  )
  .map(([doc, choices]) => handWritten(doc, choices, 1));

/** A document of any kind with up to three random edits. */
export const edited = fc
  .tuple(
    fc.oneof(document, handWrittenDocument, blockScalarDocument),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.constantFrom(...EDIT_CHARS)), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [at, cut, insert] of edits) {
      const i = t.length === 0 ? 0 : at % t.length;
      t = t.slice(0, i) + insert + t.slice(i + cut);
    }
    return t;
  });
