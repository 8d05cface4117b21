/**
 * Shortcuts of the planner's per-object work: `diffValues` walks the kind's field names sorted once
 * per kind (src/engine/diff.ts), and the planner copies fields to resolve refs only when `holdsRefs`
 * (src/engine/refs.ts). Results must be those of the longer way.
 */
import { describe, expect, it } from "vitest";
import { diffValues } from "../../src/engine/diff.js";
import { holdsRefs, resolveRefs } from "../../src/engine/refs.js";
import { getKind } from "../../src/model/index.js";

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
