/**
 * The direct YAML path (src/config/yaml-direct.ts) against the full one (the `yaml` package): for
 * every text the direct path accepts, the full parser finds no problem and gives the same positioned
 * tree, positions included. Texts come from examples, hand-picked cases, generated documents in
 * several writers' styles, and those documents with random edits (which is where a parser that
 * accepts too much shows). The direct path must also take the plain files it exists for, otherwise
 * this test could not fail.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ProblemList } from "../../src/config/errors.js";
import { parseYamlFull } from "../../src/config/source.js";
import { parseYamlDirect } from "../../src/config/yaml-direct.js";
import { allExampleConfigFiles } from "../helpers/examples.js";

const direct = (text: string) => parseYamlDirect("f.yaml", text, 200_000, 64);

/** The direct path's answer equals the full one's, or the direct path declined; whether it answered. */
function agrees(text: string): boolean {
  const answer = direct(text);
  if (answer === undefined) return false;
  const problems = new ProblemList();
  const reference = parseYamlFull("f.yaml", text, problems);
  expect(problems.items, JSON.stringify(text)).toEqual([]);
  expect(answer, JSON.stringify(text)).toEqual(reference);
  return true;
}

/** Checks `agrees` on `numRuns` texts of `texts`; how many of them the direct path took. */
function takenOf(texts: fc.Arbitrary<string>, numRuns: number): number {
  let taken = 0;
  fc.assert(
    fc.property(texts, (text) => {
      if (agrees(text)) taken++;
    }),
    { numRuns },
  );
  return taken;
}

const TAKEN = [
  "a: 1\nb: two\n",
  "# comment\n\napi_keys:\n  ci:\n    description: x # trailing\n    metadata: {a: 1, 'b': \"c\"}\n",
  "list:\n  - 1\n  - two\n  - {k: v}\n  -\n    nested: [1, [2, 3]]\n",
  "empty:\nafter: 1\nnul: ~\nnul2: null\nlast:",
  "a:   \nb: # comment\nc: 1\n",
  "num: [0o17, 0x1F, 1e3, .inf, -.inf, +1, 0, -0, 1_000, 010, 1.5, -2, 1., .5e-3, 12345678901234567890]\n",
  "nan: .NaN\n",
  "bools: [true, True, TRUE, false, yes, no, on, off]\n",
  "quoted: 'it''s # not a comment'\ndq: \"tab\\tnew\\nline \\\"q\\\" \\u00e9\"\n",
  "'quoted key': a\n\"dq key\": b\n",
  "seq:\n- a\n- b: 1\n  c: 2\n-\n- # comment\nnext: 1\n",
  "url: http://x/#frag\nhash: a#b\nodd: a]b}c,d\ncolon: a:b\n",
  "date: 2026-01-01T00:00:00Z\nplain: 2026-01-01\nneg: -abc\nq: ?x\n",
  'labels: {"n":"0","env":"bench"}\nempty: {}\nnone: []\n',
  "- a\n- - b\n  - c\n- - - d\n",
  "[a, {b: c}]\n",
  "  indented: 1\n  root: 2\n",
  "a:\n    deep: 1\nb:\n  - x\n  -   y\n",
  "unicode: é€ 中文\n",
];

const DECLINED = [
  "a: &x 1\nb: *x\n",
  "base: {k: v}\nuse:\n  <<: {k: w}\n",
  "tag: !foo bar\n",
  "---\na: 1\n",
  "dup: 1\ndup: 2\n",
  "a: [1, 2\n",
  "a: [1,\n  2]\n",
  "? complex\n: value\n",
  "block: |\n  text\n",
  "folded: >-\n  text\n",
  "multi: one\n  two\n",
  "tab:\tx\n",
  // An escaped line break in a double-quoted scalar (found by the random edits below).
  '"k":  "\\"dq\\\n"\n',
  'k: "a\\\n  b"\n',
  // A plain value below its key with a `#x` comment line, no deeper than the key, between: the yaml
  // package reads "v e" as a key (an error) or "v - e" as the value (silently).
  "a:\n#n\n v\ne: 1\n",
  "- a:\n#n\n   v\n- e\n",
  "crlf: 1\r\n",
  "1: a\n",
  "null: a\n",
  "a: b: c\n",
  '"unterminated: 1\n',
  'esc: "\\x41"\n',
  "scalar root\n",
  "a: 1\n- b\n",
  "k : v\n",
  "a: [b,]\n",
  "a: {b}\n",
];

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

/** A document in one of several writers' styles. */
const document = fc
  .tuple(value, fc.constantFrom("block", "flow", "js-yaml", "js-yaml-flow-leaves", "yaml-indent-4"))
  .map(([doc, style]) => {
    if (style === "js-yaml") return jsYaml.dump(doc);
    if (style === "js-yaml-flow-leaves") return jsYaml.dump(doc, { flowLevel: 2 });
    if (style === "yaml-indent-4") return stringify(doc, { indent: 4, indentSeq: false });
    return stringify(doc, { collectionStyle: style === "flow" ? "flow" : "block" });
  });

/**
 * A document as a person might write it, from a value and a stream of choices: block or flow
 * collections, plain, single- or double-quoted scalars (plain ones written raw, so not always what
 * the value says: the full parser is the reference, not the value), indentation of 1 to 4 spaces,
 * comments and blank lines.
 */
function handWritten(value: unknown, choices: number[]): string {
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
      if (!nested || pick(3) === 0) {
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

const handWrittenDocument = fc
  .tuple(value, fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 64 }))
  .map(([doc, choices]) => handWritten(doc, choices));

/** A document with up to three random edits. */
const edited = fc
  .tuple(
    fc.oneof(document, handWrittenDocument),
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

describe("direct YAML path", () => {
  it("gives the full parser's tree for the plain cases, positions included", () => {
    for (const text of TAKEN) expect(agrees(text), JSON.stringify(text)).toBe(true);
  });

  it("declines what is outside its subset: the next path or the full parser reads it", () => {
    for (const text of DECLINED) expect(direct(text), JSON.stringify(text)).toBeUndefined();
  });

  it("gives the full parser's tree for every example file it takes, and takes most of them", () => {
    let taken = 0;
    const files = allExampleConfigFiles();
    for (const file of files) if (agrees(readFileSync(file, "utf8"))) taken++;
    expect(taken).toBeGreaterThan(files.length / 2);
  });

  it("agrees with the full parser on generated documents in several writers' styles", () => {
    expect(takenOf(document, 1000)).toBeGreaterThan(500);
  });

  it("agrees with the full parser on documents written by hand's habits", () => {
    expect(takenOf(handWrittenDocument, 2000)).toBeGreaterThan(500);
  });

  it("agrees with the full parser, or declines, on generated documents with random edits", () => {
    expect(takenOf(edited, 3000)).toBeGreaterThan(300);
  });
});
