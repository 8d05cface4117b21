/**
 * Snapshot values: the empty state a stack starts from. Snapshots are plain data; stores copy them in
 * and out, so a caller may change the one it holds.
 */
import { randomUUID } from "node:crypto";
import type { StateSnapshot } from "./store.js";

/** Format version written by this tgw (`StateSnapshot.version`). */
export const STATE_FORMAT_VERSION = 1;

/**
 * The state of a stack that has never been written: serial 0, no resources, and a fresh random
 * lineage (a UUID), so that a first write cannot be confused with another state created meanwhile.
 */
export function emptySnapshot(stack: string): StateSnapshot {
  return { version: STATE_FORMAT_VERSION, lineage: randomUUID(), serial: 0, stack, resources: {} };
}
