/**
 * The position index of an entry (src/config/interpolate.ts, found in the YAML nodes when asked)
 * against a map filled while walking every value, as the load used to keep it: the same location for
 * every pointer of a value, and none for pointers that name no value.
 */
import { describe, expect, it } from "vitest";
import { convertFields } from "../../src/config/interpolate.js";
import { type MapEntry, type Node, type Position, parseYaml } from "../../src/config/source.js";
import { type Located, pointerChild } from "../../src/model/validation/entry.js";
import { childPath, itemPath } from "../../src/model/validation/paths.js";
import { ProblemList } from "../../src/model/validation/problems.js";

/** Every value's location, as a map filled in document order (a later key wins). */
function reference(entries: MapEntry[], entryPos: Position, basePath: string): Map<string, Located> {
  const index = new Map<string, Located>([["", { pos: entryPos, path: basePath }]]);
  const walk = (node: Node, pointer: string, path: string) => {
    if (node.type === "map") {
      for (const e of node.entries) {
        const p = pointerChild(pointer, e.key);
        index.set(p, { pos: e.value.pos, keyPos: e.keyPos, path: childPath(path, e.key) });
        walk(e.value, p, childPath(path, e.key));
      }
    } else if (node.type === "seq") {
      node.items.forEach((item, i) => {
        const p = pointerChild(pointer, i);
        index.set(p, { pos: item.pos, path: itemPath(path, i) });
        walk(item, p, itemPath(path, i));
      });
    }
  };
  for (const e of entries) {
    const p = pointerChild("", e.key);
    index.set(p, { pos: e.value.pos, keyPos: e.keyPos, path: childPath(basePath, e.key) });
    walk(e.value, p, childPath(basePath, e.key));
  }
  return index;
}

const TEXTS = [
  "a: 1\nb: two\n",
  "metadata: {a: 1, 'b': \"c\", nested: {x: [1, {y: z}]}}\nlist:\n  - 1\n  - two\n  - {k: v}\n  -\n    nested: [1, [2, 3]]\n",
  'labels:\n  "app.kubernetes.io/name": web\n  "t~ilde": x\n  "": empty\n  "0": zero\nitems: [a, b, c, d, e, f, g, h, i, j, k, l]\n',
  "empty:\nafter: 1\nnul: ~\nseq: []\nmap: {}\n",
];

const MISSING = [
  "/nope",
  "/a/0",
  "/list/9",
  "/list/01",
  "/list/-1",
  "/list/1e0",
  "/items/12",
  "/labels/app",
  "/a/",
];

describe("the position index of an entry", () => {
  for (const text of TEXTS) {
    it(`answers as the filled map does: ${JSON.stringify(text.slice(0, 30))}`, () => {
      const [root] = parseYaml("f.yaml", text, new ProblemList());
      if (root?.type !== "map") throw new Error("expected a mapping");
      const entryPos = { file: "f.yaml", line: 1, col: 1 };
      const { index } = convertFields(
        root.entries,
        entryPos,
        "things.x",
        (value) => value,
        () => true,
      );
      const expected = reference(root.entries, entryPos, "things.x");
      expect(expected.size).toBeGreaterThan(2);
      for (const [pointer, located] of expected) expect(index.get(pointer), pointer).toEqual(located);
      for (const pointer of MISSING)
        if (!expected.has(pointer)) expect(index.get(pointer), pointer).toBeUndefined();
    });
  }
});
