/**
 * Response headers to add: the API lower-cases names (docs/api.md > Response headers), so two names that
 * differ only in case are the same header and would never stop showing as drift; and a value cannot
 * hold a line break (it would split the HTTP header). Found by the `lowercase-keys` normalisation
 * annotation, not by field name. (Names themselves are checked by the schema's header-name pattern.)
 */
import { type FieldDescriptor, fieldsWhere } from "../../index.js";
import { pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

const keyedByHeader = (f: FieldDescriptor) => f.normalize === "lowercase-keys";

export const headerNames: Rule = {
  name: "header-names",
  check({ entries, problems }) {
    for (const entry of entries) {
      for (const field of fieldsWhere(entry.kind, keyedByHeader)) {
        const value = entry.fields[field.name];
        if (!value || typeof value !== "object" || Array.isArray(value)) continue;
        const pointer = pointerChild("", field.name);
        const first = new Map<string, string>();
        for (const [name, headerValue] of Object.entries(value)) {
          const p = pointerChild(pointer, name);
          const lower = name.toLowerCase();
          const earlier = first.get(lower);
          if (earlier !== undefined) {
            reportAt(
              problems,
              entry,
              p,
              `is the same header as ${earlier} (header names are case-insensitive)`,
              {
                atKey: true,
              },
            );
          } else first.set(lower, name);
          if (typeof headerValue === "string" && /[\r\n]/.test(headerValue)) {
            reportAt(problems, entry, p, "a header value cannot contain a line break");
          }
        }
      }
    }
  },
};
