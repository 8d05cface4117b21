/**
 * A literal id in a field that takes ids (`x-tgw.ref`) must carry the prefix of a kind the field can
 * hold (docs/api.md > Identifier prefixes): an IP policy id where a backend id belongs is caught before any
 * API call, with the expected kind named.
 */
import { type FieldDescriptor, fieldsWhere, getKind, type KindDescriptor } from "../../index.js";
import { hasProblemAt, pointerChild, reportAt } from "../entry.js";
import { explainId } from "../ids.js";
import type { Rule } from "./rule.js";

const holdsIds = (f: FieldDescriptor) => f.ref !== undefined;

export const literalIds: Rule = {
  name: "literal-ids",
  check({ entries, problems }) {
    for (const entry of entries) {
      for (const field of fieldsWhere(entry.kind, holdsIds)) {
        if (!field.ref || !(field.name in entry.fields)) continue;
        const { kinds, refHint } = refKinds(field.ref);
        const value = entry.fields[field.name];
        const pointer = pointerChild("", field.name);
        const items = Array.isArray(value)
          ? value.map((v, i) => [v, pointerChild(pointer, i)] as const)
          : [[value, pointer] as const];
        for (const [item, p] of items) {
          if (typeof item !== "string") continue; // a RefValue, or a type the schema reported
          if (hasProblemAt(problems, entry, p)) continue;
          const why = explainId(item, kinds);
          if (why) reportAt(problems, entry, p, `${why}${refHint}`);
        }
      }
    }
  },
};

/** The kinds a reference field takes and the hint naming their `${ref:}`, once per field's list. */
function refKinds(ref: readonly string[]): { kinds: KindDescriptor[]; refHint: string } {
  let found = byRef.get(ref);
  if (found === undefined) {
    const kinds = ref.map(getKind);
    const refHint = kinds
      .filter((k) => k.collection)
      .map((k) => `, or \${ref:${k.collection}.<name>}`)
      .join("");
    found = { kinds, refHint };
    byRef.set(ref, found);
  }
  return found;
}
const byRef = new WeakMap<readonly string[], { kinds: KindDescriptor[]; refHint: string }>();
