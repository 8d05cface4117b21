/**
 * What the refresh remembers between runs (`StateListing`, docs/state.md > What a refresh reads): how
 * many objects each kind held when last listed, which decides between one GET per object and the
 * kind's pages; and which kinds may hold objects with this stack's marker that no record names, which
 * must be listed whole to find them. Pure: no I/O.
 */
import { collections } from "../model/index.js";
import { EVERY_KIND } from "../state/snapshot.js";
import type { StateListing, StateSnapshot } from "../state/store.js";
import type { LiveState } from "./live.js";

/** Objects per page of a list (./refresh.ts asks for the most the API gives, docs/api.md). */
export const PAGE_SIZE = 100;

/**
 * True when reading `ids` objects of a kind one GET each costs fewer requests than the pages of its
 * list, for a kind that held `count` objects when last listed (undefined: never listed, so list it).
 */
export function readsByGet(ids: number, count: number | undefined): boolean {
  if (count === undefined || ids === 0) return false;
  return ids < Math.max(1, Math.ceil(count / PAGE_SIZE));
}

/**
 * The collection kinds the next refresh must list whole because `state` says they may hold objects
 * carrying this stack's marker that no record names: all of them for a state never written, written
 * before tgw kept a listing, or marked `*` (put back by hand).
 */
export function unrecordedKinds(state: StateSnapshot): Set<string> {
  const listed = state.listing?.unrecorded;
  if (state.serial === 0 || listed === undefined || listed.includes(EVERY_KIND))
    return new Set([...collections().values()].map((k) => k.kind));
  return new Set(listed);
}

/**
 * The listing the state holds once a plan read from `live` is applied: counts of the kinds listed
 * whole by this read; unrecorded: the kinds unrecorded before and not listed by this read (creates
 * need none: each is recorded as pending before it is sent, ./pending.ts). A read partly kept from
 * an earlier one (`live.kept`) clears nothing: its lists may be older than the state's last writes.
 */
export function listingAfter(state: StateSnapshot, live: LiveState): StateListing {
  const counts = { ...state.listing?.counts };
  const unrecorded = unrecordedKinds(state);
  if (!live.kept) {
    const listed = new Map<string, number>();
    for (const kind of live.listedKinds) listed.set(kind, 0);
    for (const o of live.objects.values()) {
      const n = listed.get(o.kind);
      if (n !== undefined) listed.set(o.kind, n + 1);
    }
    for (const [kind, n] of listed) {
      counts[kind] = n;
      unrecorded.delete(kind);
    }
  }
  return { counts, unrecorded: [...unrecorded].sort() };
}

/**
 * True when the state's listing (`before`, absent in a state written before tgw kept one) names the
 * same unrecorded kinds as `after`: otherwise an apply writes the state even when it has nothing else
 * to write, and before its first create.
 */
export function sameUnrecorded(before: StateListing | undefined, after: StateListing): boolean {
  return before !== undefined && [...before.unrecorded].sort().join(",") === after.unrecorded.join(",");
}
