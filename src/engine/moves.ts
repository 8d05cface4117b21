/**
 * Renames without recreating (docs/configuration.md > moved): the configuration's `moved:` entries
 * (`{from: api_keys.ci, to: api_keys.deployer}`) rewrite the state before planning, as Terraform's
 * `moved` blocks do, so the planner itself knows nothing of moves. The record of `from` becomes the
 * record of `to`; the plan then rewrites the object's ownership marker to the new address (one PATCH;
 * `ownership: state-only`: none) instead of deleting and creating it. A move whose `from` has no record
 * (already done, or never applied) does nothing; one whose `from` and `to` both have a record is
 * refused, as Terraform refuses a move onto an address that still has an object. Markers are never
 * read to decide a move: a lost state rebuilt with `--takeover` follows the entries through `renamed`.
 */
import type { StateSnapshot } from "../state/store.js";
import { MoveConflictError } from "./errors.js";

/** One `moved:` entry. */
export interface Move {
  from: string;
  to: string;
}

/**
 * The state with `moves` applied (a new object; the input is not changed), and the moves that apply.
 * @throws MoveConflictError when a move's `from` and `to` both have a state record.
 */
export function applyMoves(
  state: StateSnapshot,
  moves: readonly Move[],
): { state: StateSnapshot; applied: Move[] } {
  if (moves.length === 0) return { state, applied: [] };
  const resources = { ...state.resources };
  const applied: Move[] = [];
  for (const move of moves) {
    const record = resources[move.from];
    if (record === undefined) continue;
    const taken = resources[move.to];
    if (taken !== undefined) {
      throw new MoveConflictError(record, taken, applied.find((m) => m.to === move.to)?.from);
    }
    delete resources[move.from];
    resources[move.to] = { ...record, address: move.to };
    applied.push(move);
  }
  return { state: { ...state, resources }, applied };
}

/**
 * The address `moves` lead `address` to (entries chained: a -> b, b -> c gives c for a), for markers
 * that still name an old address.
 */
export function renamedBy(moves: readonly Move[]): (address: string) => string {
  const next = new Map(moves.map((m) => [m.from, m.to]));
  return (address) => {
    let at = address;
    for (let hops = 0; next.has(at) && hops <= moves.length; hops++) at = next.get(at) as string;
    return at;
  };
}
