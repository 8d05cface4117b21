/**
 * Snapshot values: the empty state a stack starts from. Snapshots are plain data; stores copy them in
 * and out, so a caller may change the one it holds.
 */
import { randomUUID } from "node:crypto";
import type { StateSnapshot } from "./store.js";

/** `StateListing.unrecorded`'s entry for every kind. */
export const EVERY_KIND = "*";

/**
 * Format version written by this tgw (`StateSnapshot.version`). 2: records may say where an API key's
 * token went (`tokenDelivered`, with the token's digest), which builds reading only version 1 would
 * call corrupt: they say "upgrade tgw" instead. 3: the state may hold what the refresh remembers
 * (`listing`). 4: the state may hold pending creates (records at `<address>#pending`, whose id is the
 * create id) and the marker claims it took over (`claims`), which a build reading version 3 would take
 * for addresses. Older files are read the same way and written as 4.
 */
export const STATE_FORMAT_VERSION = 4;

/**
 * The state of a stack that has never been written: serial 0, no resources, and a fresh random
 * lineage (a UUID), so that a first write cannot be confused with another state created meanwhile.
 */
export function emptySnapshot(stack: string): StateSnapshot {
  return { version: STATE_FORMAT_VERSION, lineage: randomUUID(), serial: 0, stack, resources: {} };
}

/**
 * Marks `kinds` (`EVERY_KIND` for all) unrecorded in `snapshot`, in place: the next refresh lists them
 * whole (`StateListing`). A snapshot without a listing already counts every kind unrecorded.
 */
export function markUnrecorded(snapshot: StateSnapshot, kinds: Iterable<string>): void {
  if (snapshot.listing === undefined) return;
  const unrecorded = new Set([...snapshot.listing.unrecorded, ...kinds]);
  snapshot.listing = { counts: snapshot.listing.counts, unrecorded: [...unrecorded].sort() };
}
