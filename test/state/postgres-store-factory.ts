/** Opens a PostgresStateStore for test/state/lock-child.ts: `location` is the state URL. */
import type { StateStore } from "../../src/state/index.js";
import { PostgresStateStore } from "../../src/state/postgres/store.js";

export function openStore(location: string, stack: string): StateStore {
  return new PostgresStateStore(location, { stack });
}
