/**
 * Public surface of the state store (docs/design.md section 3.2): the contract (./store.ts), the local
 * file implementation, its errors and the default location. The engine and the CLI import from here.
 * @see docs/state.md
 */
export {
  type LockHolder,
  LockTimeoutError,
  StateConflictError,
  StateCorruptError,
  StateIoError,
} from "./errors.js";
export { FileStateStore, type FileStateStoreOptions, WRITE_LOCK_TIMEOUT_MS } from "./file-store.js";
export { configDirOf, defaultStatePath, resolveStatePath, STATE_FILE } from "./location.js";
export { EVERY_KIND, emptySnapshot, markUnrecorded, STATE_FORMAT_VERSION } from "./snapshot.js";
export type { StateApi, StateListing, StateRecord, StateSnapshot, StateStore, Unlock } from "./store.js";
