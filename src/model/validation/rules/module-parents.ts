/**
 * A nested object (an HTTPS edge route) belongs to one parent (its edge), so its modules must be
 * written under that parent once: the same route id under two edges would configure one route twice.
 * (The same module address in two files is caught when files are merged.)
 */
import type { Entry } from "../entry.js";
import type { Rule } from "./rule.js";

export const moduleParents: Rule = {
  name: "module-parents",
  check({ entries, problems }) {
    // id of the innermost path parameter -> the address prefix it first appeared under
    const seen = new Map<string, { prefix: string; entry: Entry }>();
    for (const entry of entries) {
      if (!entry.pathParams) continue; // not a module
      const params = Object.values(entry.pathParams);
      if (params.length < 2) continue;
      const id = params[params.length - 1] as string;
      const prefix = entry.address.slice(0, entry.address.indexOf(`.${id}.`));
      const first = seen.get(id);
      if (!first) {
        seen.set(id, { prefix, entry });
        continue;
      }
      if (first.prefix !== prefix) {
        const at = `${first.entry.keyPos.file}:${first.entry.keyPos.line}:${first.entry.keyPos.col}`;
        problems.add(
          entry.keyPos,
          entry.address,
          `${id} is also configured under ${first.prefix} (${at}); it belongs to one parent, so write its modules there once`,
        );
      }
    }
  },
};
