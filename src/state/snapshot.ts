/**
 * Snapshot values: the empty state a stack starts from. Snapshots are plain data; stores copy them in
 * and out, so a caller may change the one it holds.
 */
import { randomUUID } from "node:crypto";
import type { StateSnapshot } from "./store.js";

/**
 * Format version written by this tgw (`StateSnapshot.version`). 2: records may say where an API key's
 * token went (`tokenDelivered`, with the token's digest), which builds reading only version 1 would
 * call corrupt: they say "upgrade tgw" instead. Version 1 files are read the same way and written as 2.
 */
export const STATE_FORMAT_VERSION = 2;

/**
 * The state of a stack that has never been written: serial 0, no resources, and a fresh random
 * lineage (a UUID), so that a first write cannot be confused with another state created meanwhile.
 */
export function emptySnapshot(stack: string): StateSnapshot {
  return { version: STATE_FORMAT_VERSION, lineage: randomUUID(), serial: 0, stack, resources: {} };
}
