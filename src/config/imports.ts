/**
 * The `import:` section (docs/configuration.md > import): existing objects adopted by the plan at a
 * configured address, in the manner of Terraform's `import` blocks (bulk adoption, reviewed in the
 * plan, instead of one `tgw import` command per object).
 *
 * ```yaml
 * import:
 *   - { to: api_keys.ci, id: ak_2Ab3Cd }
 * ```
 *
 * Rules: `to` is the address `<collection>.<name>` of a resource in the configuration (a module is
 * adopted by its path: it needs no entry), `id` an id of that kind, each `to` and each `id` named once,
 * and `to` is not the `to` of a `moved:` entry. The engine applies them (src/engine/imports.ts).
 */
import { parseAddress } from "../model/address.js";
import { collections, kindOfId } from "../model/index.js";
import type { ProblemList } from "../model/validation/problems.js";
import { describeNode, type Node, type Position } from "./source.js";

/** One entry as written. */
export interface ImportEntry {
  to: string;
  id: string;
  pos: Position;
}

/** Reads the `import:` list of one document; problems go to `problems`. */
export function readImports(node: Node, problems: ProblemList): ImportEntry[] {
  if (node.type === "scalar" && node.value === null) return [];
  if (node.type !== "seq") {
    problems.add(node.pos, "import", `must be a list of {to, id} (got ${describeNode(node)})`);
    return [];
  }
  const out: ImportEntry[] = [];
  node.items.forEach((item, i) => {
    const path = `import[${i}]`;
    if (item.type !== "map") {
      problems.add(item.pos, path, `must be a mapping {to, id} (got ${describeNode(item)})`);
      return;
    }
    const value: Record<string, string> = {};
    let invalid = false;
    for (const e of item.entries) {
      const problem =
        e.key !== "to" && e.key !== "id"
          ? "unknown key; expected to and id"
          : e.value.type !== "scalar" || typeof e.value.value !== "string" || e.value.value === ""
            ? `must be ${e.key === "to" ? "an address such as api_keys.ci" : "an id such as ak_123"}`
            : undefined;
      if (problem !== undefined)
        problems.add(e.key === "to" || e.key === "id" ? e.value.pos : e.keyPos, `${path}.${e.key}`, problem);
      else value[e.key] = String((e.value as { value: string }).value);
      invalid ||= problem !== undefined;
    }
    if (value.to !== undefined && value.id !== undefined)
      out.push({ to: value.to, id: value.id, pos: item.pos });
    else if (!invalid) problems.add(item.pos, path, "needs both to and id");
  });
  return out;
}

/**
 * Checks every entry against the configuration's addresses and the `moved:` entries' `to`s.
 * @returns the valid imports, in the order written
 */
export function checkImports(
  entries: readonly ImportEntry[],
  kindOf: ReadonlyMap<string, string>,
  movedTo: ReadonlySet<string>,
  problems: ProblemList,
): { to: string; id: string }[] {
  const cols = collections();
  const seenTo = new Set<string>();
  const seenId = new Set<string>();
  const ok: { to: string; id: string }[] = [];
  for (const e of entries) {
    const bad = (message: string) => problems.add(e.pos, "import", `${e.to} <- ${e.id}: ${message}`);
    const kind = kindOf.get(e.to);
    const collection = cols.get(parseAddress(e.to)?.collection ?? "");
    const ofId = kindOfId(e.id);
    if (kind === undefined) bad(`${e.to} is not in the configuration: add it there first`);
    else if (!collection) bad("a module is adopted by its path: it needs no import entry");
    else if (ofId?.kind !== kind)
      bad(`${e.id} is not the id of a ${collection.title}${ofId ? `: it is a ${ofId.title}` : ""}`);
    else if (movedTo.has(e.to))
      bad(`${e.to} is also the to of a moved entry: an address is either moved or imported`);
    else if (seenTo.has(e.to)) bad(`${e.to} is imported twice`);
    else if (seenId.has(e.id)) bad(`${e.id} is imported twice`);
    else {
      seenTo.add(e.to);
      seenId.add(e.id);
      ok.push({ to: e.to, id: e.id });
    }
  }
  return ok;
}
