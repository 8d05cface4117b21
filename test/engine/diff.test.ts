/**
 * Shortcuts of the planner's per-object work: `diffValues` walks the kind's field names sorted once
 * per kind (src/engine/diff.ts), and the planner copies fields to resolve refs only when `holdsRefs`
 * (src/engine/refs.ts). Results must be those of the longer way.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffValues, sameJson } from "../../src/engine/diff.js";
import { holdsRefs, resolveRefs } from "../../src/engine/refs.js";
import { canonicalJson, getKind } from "../../src/model/index.js";

describe("diffValues", () => {
  const kind = getKind("tunnel_group_backend");

  it("names the differing fields in sorted order, values built in any order", () => {
    const desired = { metadata: "m", labels: { a: "1" }, description: "d" };
    const live = { description: "x", labels: { a: "2" }, metadata: "y" };
    expect(diffValues(kind, desired, live)).toEqual(["description", "labels", "metadata"]);
    expect(
      diffValues(kind, { labels: { a: "1" }, description: "d" }, { description: "d", labels: {} }),
    ).toEqual(["labels"]);
  });

  it("compares strings and structures as canonical JSON does", () => {
    expect(
      diffValues(
        kind,
        { description: "d", labels: { b: "2", a: "1" } },
        { description: "d", labels: { a: "1", b: "2" } },
      ),
    ).toEqual([]);
    expect(diffValues(kind, { description: "1" }, { description: 1 })).toEqual(["description"]);
  });

  it("still sorts a key the kind does not have", () => {
    expect(diffValues(kind, { zz: 1, description: "d", aa: 2 }, { description: "e" })).toEqual([
      "aa",
      "description",
      "zz",
    ]);
  });
});

describe("holdsRefs", () => {
  it("says when resolveRefs would change a value", () => {
    const ref = { $ref: "event_destinations.a" };
    const cases: Record<string, unknown>[] = [
      { description: "d", labels: { a: "1" } },
      { destination_ids: [ref] },
      { destination_ids: ["ed_1", ref] },
      { backend: ref },
      { nested: { deeper: ref } }, // resolveRefs does not look inside mappings
      Object.create({ description: "inherited" }) as Record<string, unknown>,
    ];
    for (const fields of cases) {
      const resolved = resolveRefs(fields, () => "id_1");
      const same =
        JSON.stringify(resolved) === JSON.stringify(fields) &&
        Object.getPrototypeOf(fields) === Object.prototype;
      expect(holdsRefs(fields)).toBe(!same);
    }
  });
});

describe("sameJson", () => {
  const odd = [undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, new Date(0), "1970-01-01T00:00:00.000Z"];
  const leaf = fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.integer({ min: -2, max: 2 }),
    fc.double({ noNaN: false }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...odd),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: "small" },
      leaf,
      fc.array(tie("v"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom("a", "b", "c"), tie("v"), { maxKeys: 3 }),
    ),
  })).v;

  it("agrees with comparing canonical JSON, for plain data and anything else", () => {
    const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
    fc.assert(
      fc.property(value, value, (a, b) => sameJson(a, b) === same(a, b)),
      { numRuns: 3000 },
    );
    // Equal values built differently (keys in another order, a copy) must be found equal too.
    fc.assert(fc.property(value, (a) => sameJson(a, structuredClone(a)) === same(a, structuredClone(a))));
    const cases: [unknown, unknown][] = [
      [
        { b: [1, { c: null }], a: "x" },
        { a: "x", b: [1, { c: null }] },
      ],
      [{ a: 1, b: undefined }, { a: 1 }],
      [[undefined], [null]],
      [Number.NaN, null],
      [new Date(0), "1970-01-01T00:00:00.000Z"],
      [-0, 0],
      [
        [1, 2],
        [2, 1],
      ],
      [{ a: "1" }, { a: 1 }],
    ];
    for (const [a, b] of cases) expect(sameJson(a, b), JSON.stringify([a, b])).toBe(same(a, b));
  });
});
