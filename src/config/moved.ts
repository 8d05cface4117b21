/**
 * The `moved:` section (docs/configuration.md > moved): addresses renamed without recreating their
 * objects, in the manner of Terraform's `moved` blocks.
 *
 * ```yaml
 * moved:
 *   - { from: api_keys.ci, to: api_keys.deployer }
 * ```
 *
 * Rules: `from` and `to` are addresses of one collection (a module's identity is its path: it cannot
 * move); `to` is in the configuration, or is the `from` of another entry (a chain of renames, each
 * entry then moving to the chain's end); `from` is not in the configuration; an address is moved
 * from once. The engine
 * applies the moves (src/engine/moves.ts); an entry whose `from` is no longer known does nothing, so
 * entries may stay in the configuration after the move was applied.
 */
import { parseAddress } from "../model/address.js";
import { collections } from "../model/index.js";
import type { ProblemList } from "../model/validation/problems.js";
import { describeNode, type Node, type Position } from "./source.js";

/** One entry as written. */
export interface MovedEntry {
  from: string;
  to: string;
  pos: Position;
}

/** Reads the `moved:` list of one document; problems go to `problems`. */
export function readMoved(node: Node, problems: ProblemList): MovedEntry[] {
  if (node.type === "scalar" && node.value === null) return [];
  if (node.type !== "seq") {
    problems.add(node.pos, "moved", `must be a list of {from, to} (got ${describeNode(node)})`);
    return [];
  }
  const out: MovedEntry[] = [];
  node.items.forEach((item, i) => {
    const path = `moved[${i}]`;
    if (item.type !== "map") {
      problems.add(item.pos, path, `must be a mapping {from, to} (got ${describeNode(item)})`);
      return;
    }
    const value: Record<string, string> = {};
    for (const e of item.entries) {
      if (e.key !== "from" && e.key !== "to") {
        problems.add(e.keyPos, `${path}.${e.key}`, "unknown key; expected from and to");
        continue;
      }
      if (e.value.type !== "scalar" || typeof e.value.value !== "string") {
        problems.add(e.value.pos, `${path}.${e.key}`, `must be an address such as api_keys.ci`);
        continue;
      }
      value[e.key] = e.value.value;
    }
    if (value.from === undefined || value.to === undefined) {
      if (!item.entries.some((e) => e.key !== "from" && e.key !== "to"))
        problems.add(item.pos, path, "needs both from and to");
      return;
    }
    out.push({ from: value.from, to: value.to, pos: item.pos });
  });
  return out;
}

/**
 * Checks every entry against the configuration's addresses.
 * @returns the valid moves, each `to` resolved to the end of its chain (an address configured).
 */
export function checkMoved(
  entries: readonly MovedEntry[],
  addresses: ReadonlySet<string>,
  problems: ProblemList,
): { from: string; to: string }[] {
  const cols = collections();
  // Chained renames (a -> b, then b -> c) are allowed, as Terraform allows them: each entry moves its
  // `from` to the end of its chain, the address the configuration has.
  const next = new Map(entries.map((m) => [m.from, m.to]));
  const finalAddress = (to: string): string => {
    const visited = new Set<string>();
    let at = to;
    while (!addresses.has(at) && next.has(at) && !visited.has(at)) {
      visited.add(at);
      at = next.get(at) as string;
    }
    return at;
  };
  const seen = new Set<string>();
  const ok: { from: string; to: string }[] = [];
  entries.forEach((m) => {
    const path = "moved";
    const from = parseAddress(m.from);
    const to = parseAddress(m.to);
    const bad = (message: string) => problems.add(m.pos, path, `${m.from} -> ${m.to}: ${message}`);
    if (!from || !to || !cols.has(from.collection) || !cols.has(to.collection)) {
      bad("from and to must be addresses <collection>.<name> of resources (modules cannot move)");
    } else if (from.collection !== to.collection) {
      bad("an object cannot move to another collection");
    } else if (!addresses.has(finalAddress(m.to))) {
      bad(`${m.to} is not in the configuration (nor moved on to an address that is)`);
    } else if (addresses.has(m.from)) {
      bad(`${m.from} is still in the configuration: remove it (or the move)`);
    } else if (seen.has(m.from)) {
      bad(`${m.from} is moved twice`);
    } else {
      seen.add(m.from);
      ok.push({ from: m.from, to: finalAddress(m.to) });
    }
  });
  return ok;
}
