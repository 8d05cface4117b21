/**
 * Opens a FileStateStore for test/state/lock-child.ts and test/state/lease-child.ts: `location` is the
 * state file path; `leaseMs`, when given, is the lock's stale time.
 */
import { FileStateStore, type StateStore } from "../../src/state/index.js";

export function openStore(location: string, stack: string, leaseMs?: number): StateStore {
  return new FileStateStore(location, {
    stack,
    warn: () => {},
    ...(leaseMs === undefined ? {} : { staleMs: leaseMs }),
  });
}
