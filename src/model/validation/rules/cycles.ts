/**
 * References must not form a cycle: the engine creates a referenced resource before the one that
 * refers to it, which a cycle makes impossible. Each cycle is reported once, at every ref on it.
 */
import { type Entry, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

export const referenceCycles: Rule = {
  name: "reference-cycles",
  check({ entries, byAddress, problems }) {
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const seen = new Set<string>();
    const visit = (entry: Entry) => {
      state.set(entry.address, "open");
      stack.push(entry.address);
      for (const ref of entry.refs) {
        const target = byAddress.get(ref.target);
        if (!target) continue;
        const s = state.get(target.address);
        if (s === "open") {
          const cycle = [...stack.slice(stack.indexOf(target.address)), target.address];
          const key = [...new Set(cycle)].sort().join(" ");
          if (seen.has(key)) continue;
          seen.add(key);
          const text = `reference cycle: ${cycle.join(" -> ")}`;
          for (let i = 0; i < cycle.length - 1; i++) {
            const from = byAddress.get(cycle[i] as string);
            const link = from?.refs.find((r) => r.target === cycle[i + 1]);
            if (from && link) reportAt(problems, from, link.pointer, text);
          }
        } else if (s === undefined) visit(target);
      }
      stack.pop();
      state.set(entry.address, "done");
    };
    // Every resource on a cycle holds a ref: the walk starts only from those (most hold none).
    for (const entry of entries) if (entry.refs.length > 0 && !state.has(entry.address)) visit(entry);
  },
};
