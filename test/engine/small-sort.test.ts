/** The allocation-free sort of short lists gives `Array.prototype.sort`'s order, stable, at any length. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { sortShort, sortStrings } from "../../src/engine/small-sort.js";

it("sortStrings orders as Array.prototype.sort() does, short lists and long ones", () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), (list) => {
      const expected = [...list].sort();
      const copy = [...list];
      expect(sortStrings(copy)).toBe(copy);
      expect(copy).toEqual(expected);
    }),
    { numRuns: 500 },
  );
});

it("sortShort keeps the order of items neither comes before (stable)", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), (keys) => {
      const items = keys.map((key, i) => ({ key, i }));
      const sorted = sortShort([...items], (a, b) => a.key < b.key);
      expect(sorted.map((x) => x.key)).toEqual([...keys].sort((a, b) => a - b));
      for (let j = 1; j < sorted.length; j++) {
        const [p, q] = [sorted[j - 1], sorted[j]] as [(typeof items)[number], (typeof items)[number]];
        if (p.key === q.key) expect(p.i).toBeLessThan(q.i);
      }
    }),
    { numRuns: 500 },
  );
});
