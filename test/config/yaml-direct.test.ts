/**
 * The direct YAML path (src/config/yaml-direct.ts) against the full one (the `yaml` package): for
 * every text the direct path accepts, the full parser finds no problem and gives the same positioned
 * tree, positions included. Texts come from examples, hand-picked cases, generated documents in
 * several writers' styles, and those documents with random edits (which is where a parser that
 * accepts too much shows). The direct path must also take the plain files it exists for, otherwise
 * this test could not fail. The generated documents are test/helpers/yaml-documents.ts's.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseYamlDirect } from "../../src/config/yaml-direct.js";
import { allExampleConfigFiles } from "../helpers/examples.js";
import {
  agreesWithFull,
  blockScalarDocument,
  document,
  edited,
  handWrittenDocument,
  MISREAD_BY_YAML,
  takenOf,
} from "../helpers/yaml-documents.js";

const direct = (text: string) => parseYamlDirect("f.yaml", text, 200_000, 64);
const agrees = (text: string) => agreesWithFull(direct, text);

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
  // Block scalars: literal and folded, every chomping, indentation indicators, blank lines, comments.
  "block: |\n  text\n",
  "folded: >-\n  text\n",
  "pem: |\n  -----BEGIN CERTIFICATE-----\n  MIIBszCCAVmgAwIBAgIU\n  -----END CERTIFICATE-----\nnext: 1\n",
  "a: |-\n  x\n\n  y\n\n\nb: 1\n",
  "a: |+\n  x\n\n\nb: 1\n",
  "a: >\n  x\n  y\n\n  z\n   more\n  w\nb: 1\n",
  "a: >\n\n  x\n  \n  # not a comment\n",
  "a: | # comment\n  x\n# below\nb: |\nc: |+\n\nd: >",
  "a: |2\n   x\n",
  "a:\n  b: |1-\n    x\n",
  "- |1\n  x\n- >+2\n   y\n\n",
  "a:\n- |\n x\n- - |1\n     x\n- k: |1\n     x\n",
  "a: |\n  x",
];

const DECLINED = [
  ...MISREAD_BY_YAML,
  "a: &x 1\nb: *x\n",
  "base: {k: v}\nuse:\n  <<: {k: w}\n",
  "tag: !foo bar\n",
  "---\na: 1\n",
  "dup: 1\ndup: 2\n",
  "a: [1, 2\n",
  "a: [1,\n  2]\n",
  "? complex\n: value\n",
  "a: |\n  x\n b: 1\n",
  "a: |\n \n",
  "a: |\n   \n  x\n",
  "a: |0\n x\n",
  "a: |10\n x\n",
  "a: |x\n x\n",
  "a: |#c\n x\n",
  "a: >+\n  x\n\n  ",
  // A line of spaces deeper than the content after an indentation indicator: content to YAML, dropped
  // by the `yaml` package when it ends the scalar (found by the block scalar documents below).
  "a: >-1\n    deeper\n   \n",
  "a: [|]\n",
  "a:\n  |\n  x\n",
  "multi: one\n  two\n",
  "tab:\tx\n",
  // An escaped line break in a double-quoted scalar (found by the random edits below).
  '"k":  "\\"dq\\\n"\n',
  'k: "a\\\n  b"\n',
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
    expect(takenOf(direct, document, 1000)).toBeGreaterThan(500);
  });

  it("agrees with the full parser on documents written by hand's habits", () => {
    expect(takenOf(direct, handWrittenDocument, 2000)).toBeGreaterThan(500);
  });

  it("agrees with the full parser on documents of block scalars", () => {
    expect(takenOf(direct, blockScalarDocument, 2000)).toBeGreaterThan(300);
  });

  it("agrees with the full parser, or declines, on generated documents with random edits", () => {
    expect(takenOf(direct, edited, 3000)).toBeGreaterThan(300);
  });
});
