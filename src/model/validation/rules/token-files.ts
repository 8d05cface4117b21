/**
 * Two API keys must not write their tokens to the same file: the second would overwrite the first
 * (docs/design.md section 3.4).
 */
import type { Entry } from "../entry.js";
import type { Rule } from "./rule.js";

export const tokenFiles: Rule = {
  name: "token-files",
  check({ entries, problems, display }) {
    const first = new Map<string, Entry>();
    for (const entry of entries) {
      const file = entry.options.token_file;
      if (file === undefined) continue;
      const earlier = first.get(file);
      if (!earlier) {
        first.set(file, entry);
        continue;
      }
      const written = entry.body.entries.find((e) => e.key === "token_file");
      problems.add(
        written?.value.pos ?? entry.keyPos,
        `${entry.address}.token_file`,
        `${earlier.address} already writes its token to ${display(file)}`,
      );
    }
  },
};
