/**
 * Response headers module (docs/api.md > Traffic modules > Response headers): header names are checked
 * by the schema and come back lower-cased (docs/design.md section 5). Two names of `add` that differ
 * only in case would collapse into one: refused with 400.
 */
import { problems } from "../../errors.js";
import type { KindHooks } from "../hooks.js";

/** The rules of this file, as hooks of the generic builders. */
export const responseHeadersHooks: KindHooks = {
  create(input) {
    const add: Record<string, string> = {};
    for (const [name, value] of Object.entries((input.add ?? {}) as Record<string, string>)) {
      const lower = name.toLowerCase();
      if (lower in add) {
        throw problems.invalidFields([
          `add: header ${JSON.stringify(name)} is given twice (header names ignore case)`,
        ]);
      }
      add[lower] = value;
    }
    const remove = [...new Set(((input.remove ?? []) as string[]).map((n) => n.toLowerCase()))];
    return { body: { ...input, add, remove } };
  },
};
