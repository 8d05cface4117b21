/**
 * The `removed:` section (docs/configuration.md > removed): resources that tgw stops managing without
 * deleting them, in the manner of Terraform's `removed` blocks (with `destroy = false`).
 *
 * ```yaml
 * removed:
 *   - from: api_keys.legacy
 * ```
 *
 * Rules: `from` is the address of a resource of a collection (a module carries no marker: `tgw state
 * rm` already stops managing it), not in the configuration, not the `from` of a `moved:` entry, and
 * named once. The engine plans a `forget` for it (src/engine/plan.ts); an entry whose object is no
 * longer managed does nothing, so entries may stay in the configuration after the apply.
 */
import { parseAddress } from "../model/address.js";
import { collections } from "../model/index.js";
import type { ProblemList } from "../model/validation/problems.js";
import { describeNode, type Node, type Position } from "./source.js";

/** One entry as written. */
export interface RemovedEntry {
  from: string;
  pos: Position;
}

/** Reads the `removed:` list of one document; problems go to `problems`. */
export function readRemoved(node: Node, problems: ProblemList): RemovedEntry[] {
  if (node.type === "scalar" && node.value === null) return [];
  if (node.type !== "seq") {
    problems.add(node.pos, "removed", `must be a list of {from} (got ${describeNode(node)})`);
    return [];
  }
  const out: RemovedEntry[] = [];
  node.items.forEach((item, i) => {
    const path = `removed[${i}]`;
    if (item.type !== "map") {
      problems.add(item.pos, path, `must be a mapping {from: <address>} (got ${describeNode(item)})`);
      return;
    }
    let from: string | undefined;
    for (const e of item.entries) {
      if (e.key !== "from") problems.add(e.keyPos, `${path}.${e.key}`, "unknown key; expected from");
      else if (e.value.type !== "scalar" || typeof e.value.value !== "string")
        problems.add(e.value.pos, `${path}.from`, "must be an address such as api_keys.ci");
      else from = e.value.value;
    }
    if (from !== undefined) out.push({ from, pos: item.pos });
    else if (item.entries.length === 0) problems.add(item.pos, path, "needs from");
  });
  return out;
}

/**
 * Checks every entry against the configuration's addresses and the `moved:` entries' `from`s.
 * @returns the addresses to stop managing, sorted
 */
export function checkRemoved(
  entries: readonly RemovedEntry[],
  addresses: ReadonlySet<string>,
  movedFrom: ReadonlySet<string>,
  problems: ProblemList,
): string[] {
  const cols = collections();
  const seen = new Set<string>();
  for (const r of entries) {
    const bad = (message: string) => problems.add(r.pos, "removed", `${r.from}: ${message}`);
    const address = parseAddress(r.from);
    if (!address || !cols.has(address.collection)) {
      bad(
        "must be the address <collection>.<name> of a resource (a module carries no marker: use tgw state rm)",
      );
    } else if (addresses.has(r.from)) {
      bad("is still in the configuration: remove it there (or the removed entry)");
    } else if (movedFrom.has(r.from)) {
      bad("is also the from of a moved entry: an object is either moved or removed");
    } else if (seen.has(r.from)) {
      bad("is removed twice");
    } else seen.add(r.from);
  }
  return [...seen].sort();
}
