/**
 * An SSH host certificate's validity window must not be empty: `valid_until` later than
 * `valid_after` when both are set (docs/api.md > SSH host certificate).
 */
import { pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

export const validityWindow: Rule = {
  name: "validity-window",
  check({ entries, problems }) {
    for (const entry of entries) {
      const { valid_after: after, valid_until: until } = entry.fields;
      if (typeof after !== "string" || typeof until !== "string") continue;
      const pointer = pointerChild("", "valid_until");
      const loc = entry.index.get(pointer);
      if (!loc || problems.has(loc.path) || problems.has(loc.path.replace(/until$/, "after"))) continue;
      const a = Date.parse(after);
      const u = Date.parse(until);
      if (!Number.isNaN(a) && !Number.isNaN(u) && u <= a)
        reportAt(problems, entry, pointer, "must be later than valid_after");
    }
  },
};
