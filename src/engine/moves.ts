/**
 * Renames without recreating (docs/configuration.md > moved): the configuration's `moved:` entries
 * (`{from: api_keys.ci, to: api_keys.deployer}`) rewrite the planner's inputs, so the planner itself
 * knows nothing of moves:
 *
 * - the state record of `from` is read as the record of `to`;
 * - a live object carrying this stack's marker for `from` (the state was lost) is read as recorded for
 *   `to`, its marker no longer counting, unless the state records it at another address whose record
 *   does not yield to that marker (a `tgw state mv` not applied yet);
 * so `to` matches the existing object, and the plan PATCHes its ownership marker to the new address
 * (one call; `ownership: state-only`: none) instead of deleting and creating it. `from` is forgotten
 * by the state. A move whose `from` is unknown (already done, or never applied) does nothing; one whose
 * `from` and `to` both have a record (the old `to` was removed in the same change) is refused, as
 * Terraform refuses a move onto an address that still has an object. A record of `to` whose object is
 * gone (an older state copy put back) does not stop the move of an object carrying `from`'s marker.
 */
import type { StateSnapshot } from "../state/store.js";
import { MoveConflictError } from "./errors.js";
import type { LiveState } from "./live.js";

/** One `moved:` entry. */
export interface Move {
  from: string;
  to: string;
}

/** True when the refresh read `record`'s kind or id and its object was not there. */
function isGone(record: { kind: string; id: string }, live: LiveState): boolean {
  return !live.objects.has(record.id) && (live.listedKinds.has(record.kind) || live.readIds.has(record.id));
}

/** A fingerprint that no desired value has: the moved record's own is for its old address's values. */
const UNKNOWN_FINGERPRINT = "0".repeat(64);

/**
 * The planner's inputs with `moves` applied (new objects; the inputs are not changed), and the moves
 * that apply (their `from` is known to the state or to a marker, and `to` is not taken: `yields` says
 * which records of the state the ownership rules would not follow, ./ownership.ts `recordYields`).
 * @throws MoveConflictError when a move's `from` and `to` both have a state record.
 */
export function applyMoves(
  stack: string,
  state: StateSnapshot,
  live: LiveState,
  moves: readonly Move[],
  yields: (address: string) => boolean = () => false,
): { state: StateSnapshot; live: LiveState; applied: Move[] } {
  if (moves.length === 0) return { state, live, applied: [] };
  const resources = { ...state.resources };
  const objects = new Map(live.objects);
  const applied: Move[] = [];
  for (const move of moves) {
    const record = resources[move.from];
    // A record the ownership rules would not follow (an older state copy's, its object's marker newer)
    // does not take `to`: the move replaces it.
    const recorded = resources[move.to];
    const taken = recorded === state.resources[move.to] && yields(move.to) ? undefined : recorded;
    if (taken !== undefined && record !== undefined) {
      const earlier = applied.find((m) => m.to === move.to)?.from;
      throw new MoveConflictError(record, taken, earlier);
    }
    // A record of `to` whose object is known to be gone (an older state copy's) only holds `to` when
    // `from` has no object carrying its marker either.
    if (taken !== undefined && !isGone(taken, live)) continue;
    // An object the state records at another address is that address's, unless its record yields to
    // the marker (an older state copy's): a `tgw state mv` not applied yet leaves the old marker on it.
    const heldElsewhere = (id: string) =>
      Object.values(resources).some(
        (r) =>
          r.id === id && r.address !== move.from && !(r === state.resources[r.address] && yields(r.address)),
      );
    const marked = [...objects.values()].find(
      (o) => o.marker?.stack === stack && o.marker.address === move.from && !heldElsewhere(o.id),
    );
    // What `from` is, by the ownership rules: its record's object while it exists, else the object
    // carrying its marker (a record of an object deleted since, while another workspace made a new one).
    const byRecord = record !== undefined && (objects.has(record.id) || !marked) ? record : undefined;
    const id = byRecord?.id ?? marked?.id;
    if (id === undefined) continue;
    delete resources[move.from];
    resources[move.to] = byRecord
      ? { ...byRecord, address: move.to }
      : {
          address: move.to,
          kind: marked?.kind as string,
          id,
          fingerprint: UNKNOWN_FINGERPRINT,
          appliedAt: new Date(0).toISOString(),
        };
    const obj = objects.get(id);
    if (obj?.marker?.stack === stack && obj.marker.address === move.from) {
      const { marker: _old, ...unmarked } = obj;
      objects.set(id, unmarked);
    }
    applied.push(move);
  }
  return { state: { ...state, resources }, live: { ...live, objects }, applied };
}
