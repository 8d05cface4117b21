/**
 * The state journal of one apply: every result is recorded in the state store as soon as it happens
 * (docs/design.md section 3.2), so a crash loses at most the calls in flight, and those are found again
 * through their ownership markers. Results that arrive while a write is in progress are coalesced into
 * the next write, so a fast apply does not queue one write per change. A store that can write only
 * what changed (`StateAppend`: the file store's journal) is given only the records changed since the
 * last write, so a write costs what it changes, not the whole state; other stores get the whole
 * snapshot (`StateStore.write`, atomic). A journal may also gather results for a few milliseconds
 * before a write starts (`gatherMs`): fewer writes, each with more records, when the caller does not
 * wait for each write (results not yet written are found again through their ownership markers).
 */

import { orderedSnapshot } from "../state/format.js";
import {
  canAppend,
  type StateRecord,
  type StateSnapshot,
  type StateStore,
  type StateVersion,
  type WriteContext,
} from "../state/store.js";

/** How a journal writes. */
export interface JournalOptions {
  /**
   * How long a write waits for more results before it starts (ms, default 0: at once). `flush()` and a
   * change recorded with `{ now: true }` end the wait. Only for callers that do not wait for most
   * writes: each wait delays the results it records.
   */
  gatherMs?: number;
}

/** How one change is written. */
export interface RecordOptions {
  /** The caller waits for this write before it goes on: it starts without gathering (`gatherMs`). */
  now?: boolean;
}

interface Waiter {
  version: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Records results into a state store, write by write. */
export class StateJournal {
  readonly #store: StateStore;
  #base: StateSnapshot;
  readonly #working: Record<string, StateRecord>;
  #version = 0;
  #written = 0;
  #running = false;
  #failure: unknown;
  readonly #waiters: Waiter[] = [];
  /** Records set (or removed: undefined) since the last write started, by address. */
  #dirty = new Map<string, StateRecord | undefined>();
  readonly #onWrite: ((written: StateVersion) => void) | undefined;
  readonly #context: WriteContext | undefined;
  readonly #gatherMs: number;
  /** The version a caller waits for (`flush()`, `{ now: true }`): no gathering until it is written. */
  #flushAt = 0;
  /** Ends the current gathering wait early. */
  #endGather: (() => void) | undefined;

  /**
   * @param snapshot the state as read under the lock.
   * @param context what produced the writes (the plan...), kept by stores with a history.
   */
  constructor(
    store: StateStore,
    snapshot: StateSnapshot,
    onWrite?: (written: StateVersion) => void,
    context?: WriteContext,
    options: JournalOptions = {},
  ) {
    this.#store = store;
    this.#base = snapshot;
    this.#working = structuredClone(snapshot.resources);
    this.#onWrite = onWrite;
    this.#context = context;
    this.#gatherMs = options.gatherMs ?? 0;
  }

  /** The records as they will be once pending writes finish. */
  get records(): Readonly<Record<string, StateRecord>> {
    return this.#working;
  }

  /** True once a write failed: nothing more can be recorded (`flush()` throws the error). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Lineage of the state written. */
  get lineage(): string {
    return this.#base.lineage;
  }

  /**
   * The serial an ownership marker written now carries: that of the last state write, which the
   * stored state has reached (OwnershipMarker.serial; docs/state.md > Claims).
   */
  get markerSerial(): number {
    return this.#base.serial;
  }

  /**
   * The state: the serial of the last write, with the records as recorded (a copy, O(records): call
   * it after `flush()`).
   */
  get snapshot(): StateSnapshot {
    return orderedSnapshot({ ...this.#base, resources: this.#working });
  }

  /** Records `record` under its address (removing the address `drop`); resolves once it is written. */
  set(record: StateRecord, options: RecordOptions = {}, drop?: string): Promise<void> {
    return this.#mutate(options, () => {
      this.#working[record.address] = record;
      this.#dirty.set(record.address, record);
      if (drop !== undefined) this.#remove(drop);
    });
  }

  #remove(address: string): void {
    if (!(address in this.#working)) return;
    delete this.#working[address];
    this.#dirty.set(address, undefined);
  }

  /**
   * Records `record` under its address like `set`, without a promise of its own: for a caller that does
   * not wait for the write (with ownership markers, a result not yet written is found again through
   * its marker). A failed write is reported by `flush()` and `failed`; once one failed, nothing more is
   * recorded. An apply of 10,000 creates made 10,000 promises and waiters here that nobody awaited.
   */
  note(record: StateRecord, drop?: string): void {
    if (this.#failure !== undefined) return;
    this.#working[record.address] = record;
    this.#dirty.set(record.address, record);
    if (drop !== undefined) this.#remove(drop);
    this.#version++;
    if (!this.#running) void this.#run();
  }

  /**
   * Applies several changes to the records as one write: `fn` sets and deletes records by address
   * (it must not edit a record in place: only whole records are tracked).
   */
  update(fn: (records: Record<string, StateRecord>) => void, options: RecordOptions = {}): Promise<void> {
    const dirty = this.#dirty;
    const tracked = new Proxy(this.#working, {
      set(target, key, value) {
        target[key as string] = value as StateRecord;
        dirty.set(key as string, value as StateRecord);
        return true;
      },
      deleteProperty(target, key) {
        delete target[key as string];
        dirty.set(key as string, undefined);
        return true;
      },
    });
    return this.#mutate(options, () => fn(tracked));
  }

  /** Removes an address; resolves once written (at once if it was not recorded). */
  remove(address: string): Promise<void> {
    if (!(address in this.#working)) return Promise.resolve();
    return this.#mutate({}, () => {
      delete this.#working[address];
      this.#dirty.set(address, undefined);
    });
  }

  /**
   * Resolves when everything recorded so far is written.
   * @throws the store's error (StateConflictError, StateIoError...) if a write failed.
   */
  flush(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#written >= this.#version) return Promise.resolve();
    this.#hurry(this.#version);
    return new Promise((resolve, reject) => this.#waiters.push({ version: this.#version, resolve, reject }));
  }

  #mutate(options: RecordOptions, fn: () => void): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    fn();
    const version = ++this.#version;
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ version, resolve, reject }));
    if (options.now) this.#hurry(version);
    if (!this.#running) void this.#run();
    return done;
  }

  /** Someone waits for `version`: the write that takes it starts without gathering. */
  #hurry(version: number): void {
    this.#flushAt = version;
    this.#endGather?.();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#written < this.#version) {
        if (this.#gatherMs > 0 && this.#flushAt <= this.#written) await this.#gather();
        const version = this.#version;
        const dirty = this.#dirty;
        this.#dirty = new Map();
        const { resources: _, ...base } = this.#base;
        if (canAppend(this.#store)) {
          const set: StateRecord[] = [];
          const removed: string[] = [];
          for (const [address, record] of dirty) {
            if (record === undefined) removed.push(address);
            else set.push(record);
          }
          const written = await this.#store.writeChanges(base, { set, removed }, this.#context);
          this.#base = { ...base, ...written, resources: {} };
        } else {
          // A shallow copy: records are replaced whole, never edited, so the store sees this version.
          const written = await this.#store.write(
            { ...base, resources: { ...this.#working } },
            this.#context,
          );
          const { resources: _r, ...header } = written;
          this.#base = { ...header, resources: {} };
        }
        this.#written = version;
        this.#onWrite?.({ lineage: this.#base.lineage, serial: this.#base.serial });
        this.#settle();
      }
    } catch (err) {
      this.#failure = err;
      for (const w of this.#waiters.splice(0)) w.reject(err);
    } finally {
      this.#running = false;
    }
  }

  /** Waits `gatherMs`, or until `flush()`, so that the next write takes the results that come meanwhile. */
  #gather(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#endGather = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.#gatherMs);
      this.#endGather = done;
    });
  }

  #settle(): void {
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i] as Waiter;
      if (w.version <= this.#written) {
        this.#waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}
