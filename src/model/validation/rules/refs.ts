/**
 * `${ref:<collection>.<name>}` is allowed only where the schema says a field holds an id
 * (`x-tgw.ref`, on the field or on the list whose items it is), must name a collection whose kind the
 * field can hold, and must name a resource the configuration defines.
 */
import { collections, getKind, type JsonSchema } from "../../index.js";
import { didYouMean, listWords, noun } from "../../words.js";
import { type Entry, reportAt } from "../entry.js";
import { describeIds } from "../ids.js";
import { refKindsOf, schemaAt } from "../schema-check.js";
import type { Rule } from "./rule.js";

/** The kinds whose ids the value at `pointer` may hold: its own annotation, or its list's. */
export function refKindsAt(entry: Entry, pointer: string): string[] | undefined {
  const own = refKindsOf(schemaAt(entry, pointer));
  if (own) return own;
  const parentPointer = pointer.slice(0, pointer.lastIndexOf("/"));
  const parent: JsonSchema | undefined = parentPointer === "" ? undefined : schemaAt(entry, parentPointer);
  return parent?.type === "array" ? refKindsOf(parent) : undefined;
}

export const refTargets: Rule = {
  name: "ref-targets",
  check({ entries, byAddress, problems }) {
    const cols = collections();
    for (const entry of entries) {
      for (const ref of entry.refs) {
        const report = (message: string) => reportAt(problems, entry, ref.pointer, message);
        const kinds = refKindsAt(entry, ref.pointer);
        if (!kinds) {
          const idFields = entry.kind.fields.filter((f) => f.ref).map((f) => f.name);
          report(
            idFields.length > 0
              ? `\${ref:...} is only allowed in fields that hold an id (here: ${listWords(idFields)})`
              : `\${ref:...} is only allowed in fields that hold an id, and ${noun(entry.kind.title)} has none`,
          );
          continue;
        }
        const [collection = "", name = ""] = ref.target.split(".");
        const targetKind = cols.get(collection);
        if (!targetKind) {
          report(
            `\${ref:${ref.target}}: unknown collection ${collection}${didYouMean(collection, cols.keys())}`,
          );
          continue;
        }
        if (!kinds.includes(targetKind.kind)) {
          const expected = kinds.map(getKind);
          const managed = expected.filter((k) => k.collection).map((k) => k.collection as string);
          report(
            `\${ref:${ref.target}}: this field holds ${listWords(expected.map(describeIds))}, not ${noun(targetKind.title)} ids` +
              (managed.length > 0
                ? `; refer to ${listWords(managed.map((c) => `${c}.<name>`))}`
                : "; tgw does not manage those, so write the id itself"),
          );
          continue;
        }
        if (!byAddress.has(ref.target)) {
          const names = [...byAddress.keys()].filter((a) => a.startsWith(`${collection}.`));
          const hint = didYouMean(ref.target, names);
          report(
            `\${ref:${ref.target}}: no ${noun(targetKind.title)} named ${name} in the configuration${hint}`,
          );
        }
      }
    }
  },
};
