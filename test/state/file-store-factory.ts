/** Opens a FileStateStore for test/state/lock-child.ts: `location` is the state file path. */
import { FileStateStore, type StateStore } from "../../src/state/index.js";

export function openStore(location: string, stack: string): StateStore {
  return new FileStateStore(location, { stack, warn: () => {} });
}
