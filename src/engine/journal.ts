/**
 * The state journal of one apply: every result is recorded in the state store as soon as it happens
 * (docs/design.md section 3.2), so a crash loses at most the calls in flight, and those are found again
 * through their ownership markers. Writes go through `StateStore.write` (atomic); results that arrive
 * while a write is in progress are coalesced into the next write, so a fast apply does not queue one
 * write per change.
 */
import type { StateRecord, StateSnapshot, StateStore, WriteContext } from "../state/store.js";

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
  readonly #onWrite: ((snapshot: StateSnapshot) => void) | undefined;
  readonly #context: WriteContext | undefined;

  /**
   * @param snapshot the state as read under the lock.
   * @param context what produced the writes (the plan...), kept by stores with a history.
   */
  constructor(
    store: StateStore,
    snapshot: StateSnapshot,
    onWrite?: (snapshot: StateSnapshot) => void,
    context?: WriteContext,
  ) {
    this.#store = store;
    this.#base = snapshot;
    this.#working = structuredClone(snapshot.resources);
    this.#onWrite = onWrite;
    this.#context = context;
  }

  /** The records as they will be once pending writes finish. */
  get records(): Readonly<Record<string, StateRecord>> {
    return this.#working;
  }

  /** True once a write failed: nothing more can be recorded (`flush()` throws the error). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The last snapshot written (or read). */
  get snapshot(): StateSnapshot {
    return this.#base;
  }

  /** Records `record` under its address; resolves once it is written. */
  set(record: StateRecord): Promise<void> {
    return this.#mutate(() => {
      this.#working[record.address] = record;
    });
  }

  /** Applies several changes to the records as one write (`fn` edits the records in place). */
  update(fn: (records: Record<string, StateRecord>) => void): Promise<void> {
    return this.#mutate(() => fn(this.#working));
  }

  /** Removes an address; resolves once written (at once if it was not recorded). */
  remove(address: string): Promise<void> {
    if (!(address in this.#working)) return Promise.resolve();
    return this.#mutate(() => {
      delete this.#working[address];
    });
  }

  /**
   * Resolves when everything recorded so far is written.
   * @throws the store's error (StateConflictError, StateIoError...) if a write failed.
   */
  flush(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#written >= this.#version) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ version: this.#version, resolve, reject }));
  }

  #mutate(fn: () => void): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    fn();
    const version = ++this.#version;
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ version, resolve, reject }));
    if (!this.#running) void this.#run();
    return done;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#written < this.#version) {
        const version = this.#version;
        this.#base = await this.#store.write(
          { ...this.#base, resources: structuredClone(this.#working) },
          this.#context,
        );
        this.#written = version;
        this.#onWrite?.(this.#base);
        this.#settle();
      }
    } catch (err) {
      this.#failure = err;
      for (const w of this.#waiters.splice(0)) w.reject(err);
    } finally {
      this.#running = false;
    }
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
