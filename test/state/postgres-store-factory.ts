/**
 * Opens a PostgresStateStore for test/state/lock-child.ts and test/state/lease-child.ts: `location` is
 * the state URL; `leaseMs`, when given, is the state lock's lease.
 */
import type { StateStore } from "../../src/state/index.js";
import { PostgresStateStore } from "../../src/state/postgres/store.js";

export function openStore(location: string, stack: string, leaseMs?: number): StateStore {
  return new PostgresStateStore(location, {
    stack,
    ...(leaseMs === undefined ? {} : { lockLeaseMs: leaseMs }),
  });
}
