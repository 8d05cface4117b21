/**
 * The fast YAML path (src/config/yaml-fast.ts) against the full one (the `yaml` package): for every
 * text the fast path accepts, the positioned trees are equal, positions included; and the fast path
 * does accept the plain files it exists for (otherwise this test could not fail).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseYamlFast } from "../../src/config/yaml-fast.js";
import { allExampleConfigFiles } from "../helpers/examples.js";
import {
  agreesWithFull,
  document,
  edited,
  handWrittenDocument,
  MISREAD_BY_YAML,
  takenOf,
} from "../helpers/yaml-documents.js";

const fast = (text: string) => parseYamlFast("f.yaml", text, 200_000, 64);
/** The fast path's answer equals the full one's, or the fast path declined; returns whether it answered. */
const agrees = (text: string) => agreesWithFull(fast, text);

const PLAIN = [
  "a: 1\nb: two\n",
  "# comment\n\napi_keys:\n  ci:\n    description: x # trailing\n    metadata: {a: 1, 'b': \"c\"}\n",
  "list:\n  - 1\n  - two\n  - {k: v}\n  -\n    nested: [1, [2, 3]]\n",
  "empty:\nafter: 1\nnul: ~\nnul2: null\n",
  "num: [0o17, 0x1F, 1e3, .inf, -.inf, +1, 0, 1_000, 010, 1.5, -2]\n",
  "bools: [true, True, TRUE, false, yes, no, on, off]\n",
  "block: |\n  line one\n  line two\nfolded: >-\n  a\n  b\nnext: 1\n",
  "quoted: 'it''s # not a comment'\ndq: \"tab\\tnew\\nline\"\n",
  "'1': a\n2: b\ntrue: c\n",
  "crlf: 1\r\nmap:\r\n  k: v\r\n",
  "seq:\n- a\n- b: 1\n  c: 2\n",
  "url: http://x/#frag\nhash: a#b\n",
  "date: 2026-01-01T00:00:00Z\nplain: 2026-01-01\n",
  // A block scalar as a list item (js-yaml reads the item twice; the inner read finds nothing).
  "a:\n  - |-\n    line\n    break\n",
  // An empty value at the end of the text, after spaces or a tab.
  'k:\n  "_":  ',
  " -  ta:\t",
];

const DECLINED = [
  ...MISREAD_BY_YAML,
  "a: &x 1\nb: *x\n",
  "base: &b {k: v}\nuse:\n  <<: *b\n  own: 1\n",
  "tag: !foo bar\n",
  "---\na: 1\n---\nb: 2\n",
  "dup: 1\ndup: 2\n",
  "a: [1, 2\n",
  "? complex\n: value\n",
  // js-yaml reads these as numbers differently from YAML 1.2's core schema.
  "bin: 0b11\n",
  "zero: -0\n",
  // A scalar over several lines: js-yaml accepts a next line the `yaml` package rejects (the second).
  'k: "a\\\n  b"\n',
  'k: "a\\\nb"\n',
  "k: 'a\n  b'\n",
  "k: a\n  b\n",
  // Read differently by js-yaml: `-.5` (a string there), `"a"#x` (a comment there), `?` in a flow
  // collection, a flow collection closed less indented than allowed, an indentation indicator.
  "- -.5\n",
  ' "aa"# : []\n',
  "[? {} ]\n",
  "k: [{\n}]\n",
  "|1\n:\n  []\n",
];

describe("fast YAML path", () => {
  it("gives the full parser's tree for plain files, positions included", () => {
    for (const text of PLAIN) expect(agrees(text), text).toBe(true);
  });

  it("gives the full parser's tree for every example file it takes, and takes the plain ones", () => {
    let taken = 0;
    const files = allExampleConfigFiles();
    for (const file of files) if (agrees(readFileSync(file, "utf8"))) taken++;
    expect(taken).toBeGreaterThan(files.length / 2);
  });

  it("declines anchors, aliases, merge keys, tags, several documents and every file with a problem", () => {
    for (const text of DECLINED) expect(fast(text), text).toBeUndefined();
  });

  // The generated documents of test/helpers/yaml-documents.ts (block, flow and js-yaml styles among
  // them); the fast path gets what the direct one declines, so it must agree on them too.
  it("agrees with the full parser on documents in several writers' styles and as people write them", () => {
    expect(takenOf(fast, document, 500)).toBeGreaterThan(250);
    expect(takenOf(fast, handWrittenDocument, 1000)).toBeGreaterThan(250);
  });

  it("agrees with the full parser, or declines, on generated documents with random edits", () => {
    expect(takenOf(fast, edited, 2000)).toBeGreaterThan(200);
  });
});
