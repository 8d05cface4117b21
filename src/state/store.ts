/**
 * The state store contract: the reconciler's own record of what it manages (docs/design.md
 * section 3.2). The state is the truth for every object it records (docs/state.md > Identity); a lost
 * state is rebuilt from ownership markers with `--takeover`. It never holds a secret: only ids,
 * fingerprints and SHA-256 digests of write-only inputs.
 *
 * Implementations: ./file-store.ts (local JSON file) and ./postgres/store.ts (PostgreSQL, shared by a
 * team). Both pass test/state/conformance.ts.
 */

/** What the state remembers about one managed address. */
export interface StateRecord {
  /** `api_keys.ci-deployer`, or a module address `edges.https.<edge>.routes.<route>.saml`. */
  address: string;
  kind: string;
  /** Server id of the resource; for a module, its API path (its identity). */
  id: string;
  /**
   * SHA-256 (hex) of the canonical JSON of the desired fields last applied (refs resolved to ids,
   * secrets included only through their digests), so a changed config shows even for write-only fields.
   */
  fingerprint: string;
  /** SHA-256 (hex) of each write-only input last sent, by field name (e.g. `private_key_pem`). */
  writeOnly?: Record<string, string>;
  /** Addresses this one referred to when last applied (orders deletes of removed resources). */
  dependsOn?: string[];
  /**
   * Where an API key's token was delivered when tgw created the key (never the token): `file` (its
   * token file, in the checkout that applied), or `command` (the token command, docs/ci.md). A key
   * without it (imported, recovered, or created before tgw recorded it) has no known token.
   */
  tokenDelivered?: TokenDelivery;
  /** RFC 3339 time of the last create / update / put. */
  appliedAt: string;
}

/**
 * Where a created key's token went (see `StateRecord.tokenDelivered`); `nobody`: the key was found
 * by its pending create after the answer holding its token was lost (the plan creates it again).
 */
export interface TokenDelivery {
  to: "file" | "command" | "nobody";
  /**
   * The machine whose file received it; written by tgw before token files had sidecars, read and
   * kept, never written now (whose token a file holds is its sidecar's to say, ../engine/tokens.ts).
   */
  host?: string;
  /**
   * SHA-256 (hex) of the token, for `file` only: tells a deleted key's token file written before
   * sidecars. A digest of a random 40-character token reveals nothing.
   */
  digest?: string;
}

/**
 * The API a state belongs to (docs/state.md > Which API a state belongs to). Never a secret: the API
 * has no call that names the account, so the caller is identified by a fingerprint of its key.
 */
export interface StateApi {
  /** `embedded` (the reference server `tgw` starts itself), or the API's base URL without credentials or query. */
  url: string;
  /** First 16 hex digits of SHA-256 over a tgw-specific prefix and the API key; absent for `embedded`. */
  key?: string;
}

/** One consistent version of the state. */
export interface StateSnapshot {
  /** Format version of the file: STATE_FORMAT_VERSION (./snapshot.ts) once read or made by this tgw. */
  version: number;
  /** Random id fixed when the state is first created; a state of another lineage is refused. */
  lineage: string;
  /** Incremented on every write. */
  serial: number;
  stack: string;
  /** The API the resources live in; absent in states written before tgw recorded it. */
  api?: StateApi;
  /**
   * What the refresh remembers between runs (docs/state.md > What a refresh reads); absent in states
   * written before tgw recorded it, which counts as every kind unrecorded.
   */
  listing?: StateListing;
  /**
   * Per lineage, the highest ownership-marker serial this state has taken over (`--takeover`):
   * markers of that lineage up to it are known claims, not another workspace's (docs/state.md >
   * Claims). Absent: none taken over.
   */
  claims?: Record<string, number>;
  /** Records by address. */
  resources: Record<string, StateRecord>;
}

/**
 * What lets a refresh read a kind with one GET per object instead of its list (docs/state.md > What a
 * refresh reads).
 */
export interface StateListing {
  /** Objects each collection kind held when it was last listed whole, by kind name. */
  counts: Record<string, number>;
  /**
   * Kinds that may hold objects carrying this stack's marker that no record names (a create was sent,
   * `tgw state rm`...): the next refresh lists them whole. `*` stands for every kind.
   */
  unrecorded: string[];
}

/** Releases a lock; safe to call twice. */
export type Unlock = () => Promise<void>;

/** Where a state lives and how writers are kept apart. */
export interface StateStore {
  /** Human name of the location, for messages (`.tgw/state.json`). */
  readonly location: string;
  /**
   * The current snapshot; an empty one (serial 0, new lineage) when none exists yet. Repeated reads by
   * one store while nothing is stored return the same lineage.
   */
  read(): Promise<StateSnapshot>;
  /**
   * Replaces the stored snapshot atomically (a reader sees the old or the new one, never a mix)
   * and returns it with `serial` incremented.
   * @throws StateConflictError if the stored serial or lineage is not the one `snapshot` was read at.
   */
  write(snapshot: StateSnapshot, context?: WriteContext): Promise<StateSnapshot>;
  /**
   * Takes the exclusive lock of this state, waiting up to `timeoutMs` (0: fail at once).
   * `holder` names the taker's command (`tgw apply`); the store adds pid, host and time, and shows all
   * of it to whoever waits (`locked by tgw apply (pid 123 on host-a, since 10:02:11)`).
   * An aborted `signal` stops the wait (`tgw watch` shutting down must not sit out the timeout).
   * @throws LockTimeoutError naming the current holder when the wait runs out; `signal.reason` when aborted.
   */
  lock(opts: { timeoutMs: number; holder: string; signal?: AbortSignal }): Promise<Unlock>;
}

/** The records one write changes (`StateAppend.writeChanges`). */
export interface StateChanges {
  /** New or replaced records. */
  set: readonly StateRecord[];
  /** Addresses no longer recorded. */
  removed: readonly string[];
}

/** Lineage and serial: what identifies one version of a state. */
export interface StateVersion {
  lineage: string;
  serial: number;
}

/**
 * A store that can write only what changed since the version its caller holds (the file store appends
 * it to a journal; docs/state.md > The journal), instead of the whole snapshot. The engine uses it when
 * a store has it, and `write` otherwise.
 */
export interface StateAppend {
  /**
   * Writes the state `base` (every field but the records: the API may change) with `changes` applied
   * to the records of version `base.lineage` / `base.serial`, as serial + 1. Durable when it resolves.
   * @returns the version written.
   * @throws StateConflictError if the stored version is not `base`'s (as `write`); Error (a bug of the
   * caller) if a record is not valid state material.
   */
  writeChanges(
    base: Omit<StateSnapshot, "resources">,
    changes: StateChanges,
    context?: WriteContext,
  ): Promise<StateVersion>;
}

/** True when `store` can write only what changed. */
export function canAppend(store: StateStore): store is StateStore & StateAppend {
  return typeof (store as Partial<StateAppend>).writeChanges === "function";
}

/** One change of the plan that produced a write, as kept in the state history (no values: no secrets). */
export interface PlannedChange {
  address: string;
  kind: string;
  /** `create`, `update`, `replace`, `put`, `delete`. */
  action: string;
}

/**
 * What produced a write. Stores that keep a history (PostgreSQL) record it with the state; the file
 * store ignores it.
 */
export interface WriteContext {
  /** The changes of the plan being applied (no-ops left out). */
  plan?: PlannedChange[];
  /** Revision (Git commit id) of the configuration applied, when it came from Git (`tgw watch --git`). */
  revision?: string;
  /** The command that wrote (`tgw apply`, `tgw watch`, `tgw state restore 12`). */
  command?: string;
}

/** One past state, as listed by `tgw state history`. */
export interface HistoryEntry {
  serial: number;
  lineage: string;
  /** RFC 3339 time of the write. */
  writtenAt: string;
  /** The command that wrote it. */
  writtenBy: string;
  revision?: string;
  plan?: PlannedChange[];
  /** Number of records in that state. */
  resources: number;
}

/** A store that keeps the last N states (PostgreSQL). */
export interface StateHistory {
  /** The kept states, newest first, at most `limit`. */
  history(limit?: number): Promise<HistoryEntry[]>;
  /** The snapshot written at `serial` (of the current lineage first), or undefined if it is not kept. */
  snapshotAt(serial: number): Promise<StateSnapshot | undefined>;
}

/** A store that can take a whole state from another one (`tgw state migrate`). */
export interface StateImport {
  /**
   * Stores `snapshot` exactly (lineage and serial kept) into an empty state. Does nothing when the very
   * same state (lineage, serial and records) is already there.
   * @throws StateConflictError if the store already holds another state.
   */
  importSnapshot(snapshot: StateSnapshot): Promise<void>;
}

/**
 * A store whose lock has a lease (PostgreSQL: its session's; a file: its stale time): its holder may
 * act for the state, on the API too, only while the lease is known to run. The engine checks it before
 * every API write, so a holder that was frozen longer than the lease (and lost the lock to another run)
 * writes nothing once woken.
 */
export interface StateFencing {
  /**
   * Resolves at once while the state lock this store holds was confirmed recently (PostgreSQL: within
   * half its lease; a file: its directory seen within a quarter of a second, refreshed on time); else
   * confirms it first (the database; the lock directory). Resolves when this store holds no lock.
   * @throws StateLockLostError when the lock is no longer held.
   */
  assertLockHeld(): Promise<void>;
  /**
   * Without I/O: false once the lock, as last confirmed, may have been lost since (its lease ran out by
   * the wall clock or the monotonic one). Asked right before a write that `assertLockHeld` let through
   * is handed to the network: false means the process stalled in between (frozen), and the write is
   * held back and checked again. True when this store holds no lock.
   */
  lockStillConfirmed(): boolean;
}

/** True when `store`'s lock has a lease that API writes must check. */
export function canFence(store: StateStore): store is StateStore & StateFencing {
  const fencing = store as Partial<StateFencing>;
  return typeof fencing.assertLockHeld === "function" && typeof fencing.lockStillConfirmed === "function";
}
