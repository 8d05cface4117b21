/**
 * The local state store: one JSON file, by default `<config dir>/.tgw/state.json` (./location.ts).
 *
 * - Format: ./format.ts (stable, sorted 2-space JSON; closed, so no secret can hide in it).
 * - Writes are atomic (temporary file, fsync, rename, fsync of the directory) and compare-and-swap: a
 *   write is refused (StateConflictError) when the file's lineage or serial moved since the snapshot
 *   was read. The previous version is kept as `<file>.backup`. Files are mode 0600, the directory 0700.
 * - A file that cannot be read as a state is a StateCorruptError and is never overwritten.
 * - `writeChanges()` appends only the changed records to the journal `<file>.journal` (./journal-file.ts),
 *   fsynced before it resolves; every read applies the journal to the file. The journal is compacted
 *   (the whole state written atomically, then the journal removed) when the lock is released and when
 *   it grows past the size of the state file (at least 1 MiB), so a write costs the records it changes,
 *   not the whole state.
 * - `<file>.serial` holds the lineage and serial this store last wrote: a state file older than that was
 *   put back by hand, and is read with every kind marked unrecorded (`StateListing`), so the next
 *   refresh lists every kind and finds the objects created since the copy was made.
 * - `lock()` is exclusive between processes (./file-lock.ts: `<file>.lock`, holder in `<file>.lock-info`).
 *   `write()` by a store that does not hold the lock takes it for the time of the write, so two writers
 *   can never interleave their check and their rename.
 * - Fencing (`StateFencing`): every write first confirms that the lock is still this store's; once it
 *   was taken over (the process frozen longer than the stale time), the store writes nothing more and
 *   `assertLockHeld()`, which the engine calls before each API write, fails too (StateLockLostError).
 * @see docs/state.md
 */
import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, link, mkdir, open, readFile, rename, rm, stat, truncate } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { removeStaleTempFiles, syncDirectory, writeFileAtomic } from "./atomic-write.js";
import { StateConflictError, StateCorruptError, StateIoError, StateLockLostError } from "./errors.js";
import { DEFAULT_STALE_MS, FileLock, type HeldFileLock } from "./file-lock.js";
import { orderedSnapshot, parseState, serializeState, snapshotProblems } from "./format.js";
import { journalLine, replayJournal, setHeader } from "./journal-file.js";
import { processIsAlive } from "./lock-info.js";
import { EVERY_KIND, emptySnapshot } from "./snapshot.js";
import type {
  StateAppend,
  StateChanges,
  StateFencing,
  StateImport,
  StateSnapshot,
  StateStore,
  StateVersion,
  Unlock,
  WriteContext,
} from "./store.js";

/** How long `write()` waits for the lock when its store does not hold it (ms). */
export const WRITE_LOCK_TIMEOUT_MS = 10_000;

/** The journal is compacted once it is longer than this and than the state file (bytes). */
export const JOURNAL_MIN_COMPACT_BYTES = 1 << 20;

/** Options of a `FileStateStore`. */
export interface FileStateStoreOptions {
  /**
   * The stack this state belongs to (docs/design.md section 2). `read()` refuses a file of another stack
   * (StateConflictError) and starts an empty state with this name. Omitted: any stack is accepted (for
   * inspection: `tgw state list`), and an empty state cannot be written.
   */
  stack?: string;
  /** A lock not refreshed for this long is taken over as stale (ms, at least 2000; default 10000). */
  staleMs?: number;
  /** Receives notes (a stale lock taken over, a lock lost). Default: a `Warning:` line on stderr. */
  warn?: (message: string) => void;
  /** Receives debug notes (a torn last journal line ignored). Default: none. */
  debug?: (message: string) => void;
}

/** The state file as seen: its identity and the journal's. */
interface Seen extends StateVersion {
  identity: string;
  /** Size of the state file (bytes). */
  stateBytes: number;
  /** Inode and length of the journal (`none` when there is none). */
  journal: string;
  /** Length of the journal's whole lines: where the next entry goes. */
  journalBytes: number;
}

/**
 * The journal is opened for appending with `O_DSYNC` where the platform has it: each write then returns
 * once its bytes (and the file's new length) are on disk, as a write followed by `fdatasync` does, in
 * one system call and one thread-pool round trip instead of two. Elsewhere, `datasync()` follows the
 * write.
 */
const SYNCED_WRITES = typeof constants.O_DSYNC === "number";
const JOURNAL_OPEN_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (SYNCED_WRITES ? constants.O_DSYNC : 0);

/** Errors of `link()` on file systems without hard links (the backup is then a copy). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "EMLINK", "ENOSYS"]);

/** What changes whenever the file is replaced or edited: device, inode, size, modification and change times. */
function identityOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** A copy of `snapshot` whose records (and API) are those of `snapshot`, frozen: no reader changes them. */
function frozenCopy(snapshot: StateSnapshot): StateSnapshot {
  for (const record of Object.values(snapshot.resources)) deepFreeze(record);
  if (snapshot.api) deepFreeze(snapshot.api);
  return { ...snapshot, resources: { ...snapshot.resources } };
}

function deepFreeze(value: object): void {
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) if (typeof v === "object" && v !== null) deepFreeze(v);
}

const RECOVERY = (location: string) =>
  `restore ${location}.backup (the version before the last write) and remove ${location}.journal, or move both away to rebuild the state from the ownership markers on the next plan`;

const JOURNAL_RECOVERY = (location: string) =>
  `move ${location}.journal away to use ${location} without the writes since its last compaction (the ownership markers recover what they recorded), or restore both from a copy`;

/** A state kept in a local JSON file and its journal. */
export class FileStateStore implements StateStore, StateAppend, StateFencing, StateImport {
  /** The path as given, relative to the current directory when inside it (`.tgw/state.json`). */
  readonly location: string;
  /** Absolute path of the state file. */
  readonly path: string;
  /** Absolute path of the previous version. */
  readonly backupPath: string;
  /** Absolute path of the journal (writes since the last compaction). */
  readonly journalPath: string;
  /** Absolute path of the lineage and serial last written (put-back detection, see the module comment). */
  readonly serialPath: string;
  readonly #stack: string | undefined;
  readonly #warn: (message: string) => void;
  readonly #debug: (message: string) => void;
  readonly #lock: FileLock;
  /**
   * The lock `lock()` took, while its `Unlock` is outstanding (lost or not): every write of this store
   * first makes sure it still holds it.
   */
  #held: HeldFileLock | undefined;
  /**
   * Lineage of the empty snapshot this store hands out while no file exists, so that two reads with
   * nothing stored in between compare equal. Forgotten once a file is seen or written.
   */
  #emptyLineage: string | undefined;
  /** Identity and version of the files as this store last read or wrote them. */
  #seen: Seen | undefined;
  /**
   * The state at `#seen` (file and journal applied), kept by a writer so that a journal write does not
   * read the file again; owned by this store, never handed out.
   */
  #current: StateSnapshot | undefined;
  /** The journal, open for appending while this store holds the lock, and its inode. */
  #journalHandle: FileHandle | undefined;
  #journalInode = 0;
  /** Serialises this store's writes: each one checks, then renames. */
  #writing: Promise<unknown> = Promise.resolve();

  /**
   * @param path the state file, e.g. `<config dir>/.tgw/state.json`; it and its directory are created on
   * the first write.
   */
  constructor(path: string, opts: FileStateStoreOptions = {}) {
    this.path = resolve(path);
    this.backupPath = `${this.path}.backup`;
    this.journalPath = `${this.path}.journal`;
    this.serialPath = `${this.path}.serial`;
    const rel = relative(process.cwd(), this.path);
    this.location = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : this.path;
    this.#stack = opts.stack;
    const warn = opts.warn ?? ((m: string) => process.stderr.write(`Warning: ${m}\n`));
    this.#warn = warn;
    this.#debug = opts.debug ?? (() => {});
    this.#lock = new FileLock(this.path, {
      location: this.location,
      staleMs: opts.staleMs ?? DEFAULT_STALE_MS,
      warn,
    });
  }

  /**
   * The stored snapshot (a copy: its resources map is the caller's; its records may be shared with this
   * store, frozen), or `emptySnapshot(stack)` when the file does not exist (the same lineage on every
   * read of this store until a file appears, so a caller can tell nothing moved).
   * @throws StateCorruptError if the file is not a state; StateConflictError if it is another stack's;
   * StateIoError if it cannot be read.
   */
  async read(): Promise<StateSnapshot> {
    // The files as this store last wrote or read them (a watcher's next reconcile): its own copy
    // rather than the file read, parsed and checked again. Records are shared, frozen.
    if (this.#current !== undefined && (await this.#unchanged())) return frozenCopy(this.#current);
    const stored = await this.#readStored();
    if (stored !== undefined) {
      this.#emptyLineage = undefined;
      return stored.snapshot;
    }
    const empty = emptySnapshot(this.#stack ?? "");
    this.#emptyLineage ??= empty.lineage;
    return { ...empty, lineage: this.#emptyLineage };
  }

  /**
   * Writes `snapshot` with `serial + 1`, keeping the previous file as `<file>.backup`, and returns what
   * was written.
   * @throws StateConflictError if the file's lineage or serial is not the snapshot's (or the file was
   * deleted after a non-empty read); StateCorruptError if the stored file is not a state (it is kept);
   * LockTimeoutError if another process holds the lock for more than 10s; Error (a bug of the caller)
   * if `snapshot` is not a valid state.
   */
  write(snapshot: StateSnapshot): Promise<StateSnapshot> {
    return this.#queue(() => this.#write(snapshot));
  }

  /**
   * Appends `changes` to the journal as serial + 1 of `base` (see `StateAppend.writeChanges`), fsynced
   * before it resolves; the first write of a state writes the whole file. Compacts the journal once it
   * is longer than the state file (and 1 MiB).
   * @throws as `write`.
   */
  writeChanges(
    base: Omit<StateSnapshot, "resources">,
    changes: StateChanges,
    _context?: WriteContext,
  ): Promise<StateVersion> {
    return this.#queue(() => this.#writeChanges(base, changes));
  }

  /** Runs `fn` after this store's earlier writes. */
  #queue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#writing.then(fn, fn);
    this.#writing = run.catch(() => {});
    return run;
  }

  /**
   * Takes the exclusive lock of this state (see `StateStore.lock`). `holder` names the command
   * (`tgw apply`); the pid, host name and time are added to what waiters see. Not re-entrant: a store
   * that holds the lock and asks for it again waits like anyone else.
   * @throws LockTimeoutError naming the holder: `state .tgw/state.json is locked by tgw apply (pid 1234 on
   * host-a, since 10:02:11); waited 30s`.
   */
  async lock(opts: { timeoutMs: number; holder: string; signal?: AbortSignal }): Promise<Unlock> {
    const held = await this.#lock.acquire(opts);
    this.#held = held;
    // What this store last saw may have been deleted or replaced while it did not hold the lock.
    if (this.#current !== undefined && !(await this.#unchanged())) {
      this.#seen = undefined;
      this.#current = undefined;
      await this.#closeJournal();
    }
    // Temporary files of a writer that was killed (only the lock holder writes, so none is in use).
    for (const p of [this.path, this.backupPath]) await removeStaleTempFiles(p, processIsAlive);
    let done: Promise<void> | undefined;
    return () => {
      done ??= (async () => {
        // The end of a command: fold the journal into the file while the lock is still ours.
        if (this.#held === held) await this.#queue(() => this.#compactAtEnd(held));
        if (this.#held === held) this.#held = undefined;
        await this.#closeJournal();
        await held.release();
      })();
      return done;
    };
  }

  /**
   * See `StateFencing.assertLockHeld`: resolves while the lock `lock()` took is still this store's
   * (./file-lock.ts `HeldFileLock.assertHeld`: its directory is looked at every quarter of a second at
   * most while it is refreshed on time), and when this store holds no lock.
   * @throws StateLockLostError when it was taken over, or not refreshed for nearly its stale time.
   */
  assertLockHeld(): Promise<void> {
    return this.#held?.assertHeld() ?? Promise.resolve();
  }

  /** See `StateFencing.lockStillConfirmed` (./file-lock.ts `HeldFileLock.stillConfirmed`). */
  lockStillConfirmed(): boolean {
    return this.#held?.stillConfirmed() ?? true;
  }

  /**
   * Writes `snapshot` exactly (lineage and serial kept) when there is no state file yet
   * (`tgw state migrate`); does nothing when the file already holds that very state.
   * @throws StateConflictError if the file holds another state; Error if `snapshot` is not valid.
   */
  async importSnapshot(snapshot: StateSnapshot): Promise<void> {
    const text = serializeState(snapshot);
    const problems = snapshotProblems(snapshot, text);
    if (problems.length > 0) {
      throw new Error(`refusing to write an invalid state to ${this.location}: ${problems.join("; ")}`);
    }
    await this.#locked(async () => {
      const stored = await this.#readStored();
      if (stored !== undefined) {
        if (serializeState(stored.snapshot) === text) return;
        throw new StateConflictError(
          this.location,
          `already holds a state (lineage ${stored.snapshot.lineage}, serial ${stored.snapshot.serial}): a state is migrated only into an empty one`,
        );
      }
      await this.#writeWhole(snapshot, text, false);
      this.#emptyLineage = undefined;
    });
  }

  async #write(snapshot: StateSnapshot): Promise<StateSnapshot> {
    const incremented = { ...snapshot, serial: snapshot.serial + 1 };
    // A deep copy in file order: what is written, and what the caller gets back.
    const next = orderedSnapshot(incremented);
    const text = `${JSON.stringify(next, null, 2)}\n`;
    // The caller's snapshot is checked (the copy would drop unknown fields); the text for private keys.
    const problems = snapshotProblems(incremented, text);
    if (this.#stack !== undefined && next.stack !== this.#stack) {
      problems.push(`stack: is "${next.stack}", this store's stack is "${this.#stack}"`);
    }
    if (problems.length > 0) {
      throw new Error(`refusing to write an invalid state to ${this.location}: ${problems.join("; ")}`);
    }
    await this.#locked(async () => {
      const stored = await this.#storedVersion();
      this.#checkVersion(stored, snapshot);
      await this.#writeWhole(next, text, stored !== undefined);
    });
    return next;
  }

  async #writeChanges(base: Omit<StateSnapshot, "resources">, changes: StateChanges): Promise<StateVersion> {
    const { resources: _none, ...header } = orderedSnapshot({
      ...base,
      serial: base.serial + 1,
      resources: {},
    });
    let entry: ReturnType<typeof journalLine>;
    try {
      if (this.#stack !== undefined && header.stack !== this.#stack) {
        throw new Error(`stack: is "${header.stack}", this store's stack is "${this.#stack}"`);
      }
      entry = journalLine(header, changes);
    } catch (err) {
      throw new Error(`refusing to write an invalid state to ${this.location}: ${(err as Error).message}`);
    }
    await this.#locked(async () => {
      const current = await this.#load();
      this.#checkVersion(current, base);
      if (current === undefined) {
        // The first write of a state: the whole file.
        const first: StateSnapshot = { ...header, resources: {} };
        for (const a of changes.removed) delete first.resources[a];
        Object.assign(first.resources, entry.set);
        await this.#writeWhole(first, serializeState(first), false);
        this.#current = first;
        return;
      }
      const listingChanged = JSON.stringify(current.listing) !== JSON.stringify(header.listing);
      await this.#append(entry.line);
      // A put-back copy must be told from this state even when the journal is moved away with it.
      if (listingChanged) await this.#noteWritten(header);
      for (const a of changes.removed) delete current.resources[a];
      Object.assign(current.resources, entry.set);
      current.serial = header.serial;
      setHeader(current, header);
      const seen = this.#seen as Seen;
      seen.serial = header.serial;
      if (seen.journalBytes > Math.max(JOURNAL_MIN_COMPACT_BYTES, seen.stateBytes))
        await this.#compact(current);
    });
    this.#emptyLineage = undefined;
    return { lineage: header.lineage, serial: header.serial };
  }

  /**
   * Runs `fn` holding the lock: this store's, or taken for the time of `fn`; either is first confirmed
   * held, so a store whose lock was taken over (frozen longer than its stale time) writes nothing.
   * @throws StateLockLostError when it is not.
   */
  async #locked(fn: () => Promise<void>): Promise<void> {
    const own = this.#held;
    const held =
      own ??
      (await this.#lock.acquire({ timeoutMs: WRITE_LOCK_TIMEOUT_MS, holder: "tgw (writing the state)" }));
    try {
      await held.assertHeld();
      await fn();
    } finally {
      // Another process may compact (and remove) the journal once the lock is released.
      if (own === undefined) {
        await this.#closeJournal();
        await held.release();
      }
    }
  }

  /** @throws StateConflictError unless `stored` (undefined: no file) is the version `expected` was read at. */
  #checkVersion(stored: StateVersion | undefined, expected: StateVersion): void {
    if (stored === undefined) {
      if (expected.serial !== 0) {
        throw new StateConflictError(
          this.location,
          `was deleted since it was read (at serial ${expected.serial}); run the command again`,
        );
      }
      return;
    }
    if (stored.lineage !== expected.lineage) {
      throw new StateConflictError(
        this.location,
        `has lineage ${stored.lineage}, not ${expected.lineage}: it was created or replaced since it was read; run the command again`,
      );
    }
    if (stored.serial !== expected.serial) {
      throw new StateConflictError(
        this.location,
        `changed since it was read (read at serial ${expected.serial}, now serial ${stored.serial}): another tgw wrote it; run the command again`,
      );
    }
  }

  /**
   * Writes the whole state atomically and removes the journal (whose entries it holds). Without a state
   * file the journal goes first, so that no leftover entry can apply to the new file.
   */
  async #writeWhole(snapshot: StateVersion, text: string, keepBackup: boolean): Promise<void> {
    try {
      await this.#closeJournal();
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      if (!keepBackup) await rm(this.journalPath, { force: true });
      else await this.#keepBackup();
      await writeFileAtomic(this.path, text);
      // A crash before this leaves entries at or below the file's serial: they are skipped on read.
      if (keepBackup) await rm(this.journalPath, { force: true });
      await this.#noteWritten(snapshot);
      const st = await stat(this.path);
      this.#seen = {
        identity: identityOf(st),
        stateBytes: st.size,
        journal: "none",
        journalBytes: 0,
        lineage: snapshot.lineage,
        serial: snapshot.serial,
      };
      this.#current = undefined;
    } catch (err) {
      this.#forget();
      throw new StateIoError(this.location, "write", err);
    }
    this.#emptyLineage = undefined;
  }

  /**
   * Records `version` as the last state written here (`<file>.serial`). Only a hint for telling a state
   * put back by hand: a failure is logged at debug level, not thrown.
   */
  async #noteWritten(version: StateVersion): Promise<void> {
    const text = `${JSON.stringify({ lineage: version.lineage, serial: version.serial })}\n`;
    await writeFileAtomic(this.serialPath, text).catch((err: Error) =>
      this.#debug(`state ${this.location}: could not write ${this.serialPath}: ${err.message}`),
    );
  }

  /**
   * Marks every kind unrecorded in `snapshot` when `<file>.serial` says this store wrote a later state
   * of its lineage, or another lineage: the file was put back or replaced by hand.
   */
  async #checkPutBack(snapshot: StateSnapshot): Promise<void> {
    let written: Partial<StateVersion>;
    try {
      written = JSON.parse(await readFile(this.serialPath, "utf8")) as Partial<StateVersion>;
    } catch {
      return; // none yet (or unreadable): nothing to compare with
    }
    const later = written.lineage === snapshot.lineage && (written.serial ?? 0) > snapshot.serial;
    if (later || (typeof written.lineage === "string" && written.lineage !== snapshot.lineage)) {
      snapshot.listing = { counts: snapshot.listing?.counts ?? {}, unrecorded: [EVERY_KIND] };
    }
  }

  /** Appends one entry to the journal and waits until it is on disk. */
  async #append(line: string): Promise<void> {
    const seen = this.#seen as Seen;
    try {
      let created = false;
      if (this.#journalHandle === undefined) {
        created = seen.journalBytes === 0;
        this.#journalHandle = await open(this.journalPath, JOURNAL_OPEN_FLAGS, 0o600);
        // Explicit: the mode given to open() is reduced by the umask.
        if (created) await this.#journalHandle.chmod(0o600);
        this.#journalInode = (await this.#journalHandle.stat()).ino;
      }
      const bytes = Buffer.from(line, "utf8");
      await this.#journalHandle.write(bytes, 0, bytes.length);
      if (!SYNCED_WRITES) await this.#journalHandle.datasync();
      if (created) await syncDirectory(dirname(this.path));
      seen.journalBytes += bytes.length;
      seen.journal = `${this.#journalInode}:${seen.journalBytes}`;
    } catch (err) {
      // Half a line may be on disk: the next write reads the files again and cuts it off.
      this.#forget();
      throw new StateIoError(this.location, "write", err);
    }
  }

  /** Writes `current` as the whole state and removes the journal. */
  async #compact(current: StateSnapshot): Promise<void> {
    await this.#writeWhole(current, serializeState(current), true);
    this.#current = current;
  }

  /**
   * At unlock: compacts a journal left by this store or another writer, unless `held` was lost (the
   * files are the new holder's). Never throws (warns).
   */
  async #compactAtEnd(held: HeldFileLock): Promise<void> {
    try {
      await held.assertHeld();
      if ((await this.#journalIdentity()) === "none") return;
      const current = await this.#load();
      if (current !== undefined && (this.#seen as Seen).journalBytes > 0) await this.#compact(current);
    } catch (err) {
      if (err instanceof StateLockLostError) return;
      this.#warn(
        `could not compact the journal of state ${this.location} (${(err as Error).message}): it is kept and read with the state`,
      );
    }
  }

  /** Forgets what was seen: the next write reads the files again. */
  #forget(): void {
    this.#seen = undefined;
    this.#current = undefined;
    void this.#closeJournal();
  }

  async #closeJournal(): Promise<void> {
    const handle = this.#journalHandle;
    this.#journalHandle = undefined;
    await handle?.close().catch(() => {});
  }

  /** `<inode>:<size>` of the journal, or `none`. */
  async #journalIdentity(): Promise<string> {
    try {
      const st = await stat(this.journalPath);
      return `${st.ino}:${st.size}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return "none";
      throw new StateIoError(this.location, "read", err);
    }
  }

  /** True when the files are as this store last saw them (so `#seen` and `#current` hold). */
  async #unchanged(): Promise<boolean> {
    if (this.#seen === undefined) return false;
    let current: Stats;
    try {
      current = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw new StateIoError(this.location, "read", err);
    }
    return (
      this.#seen.identity === identityOf(current) && this.#seen.journal === (await this.#journalIdentity())
    );
  }

  /**
   * Under the lock: the state (file and journal) as this store keeps it for appending, read again
   * unless the files are as it last saw them; undefined when there is no state file. A torn last
   * journal line is cut off here, so the next entry follows a whole line.
   */
  async #load(): Promise<StateSnapshot | undefined> {
    // While this store holds the lock it is the only writer: what it wrote is what is there.
    if (this.#current !== undefined && (this.#held !== undefined || (await this.#unchanged())))
      return this.#current;
    await this.#closeJournal();
    const stored = await this.#readStored();
    if (stored === undefined) return undefined;
    const seen = this.#seen as Seen;
    if (stored.torn) {
      try {
        await truncate(this.journalPath, seen.journalBytes);
        seen.journal = await this.#journalIdentity();
      } catch (err) {
        this.#forget();
        throw new StateIoError(this.location, "write", err);
      }
    }
    this.#current = stored.snapshot;
    return stored.snapshot;
  }

  /** Lineage and serial of the stored state (file and journal), or undefined if there is no file. */
  async #storedVersion(): Promise<StateVersion | undefined> {
    if (await this.#unchanged()) return this.#seen;
    return (await this.#readStored())?.snapshot;
  }

  /**
   * The stored snapshot (a fresh copy: the file with the journal applied), or undefined if there is no
   * file. A compaction between reading the file and the journal replaces the file: both are read again.
   */
  async #readStored(): Promise<{ snapshot: StateSnapshot; torn: boolean } | undefined> {
    for (let attempt = 1; ; attempt++) {
      const file = await this.#readFile();
      if (file === undefined) return undefined;
      const journal = await this.#readJournal();
      if (attempt < 5) {
        const now = await stat(this.path).then(identityOf, () => "none");
        if (now !== file.identity) continue;
      }
      const snapshot = this.#parse(file.text);
      let journalBytes = 0;
      let torn = false;
      if (journal !== undefined) {
        const replayed = replayJournal(snapshot, journal.bytes);
        if ("problem" in replayed) {
          throw new StateCorruptError(
            `${this.location}.journal`,
            replayed.problem,
            JOURNAL_RECOVERY(this.location),
          );
        }
        if (replayed.torn !== undefined) {
          torn = true;
          this.#debug(
            `state ${this.location}: ignored the last journal line, cut short by a crash or still being written (${replayed.torn})`,
          );
        }
        journalBytes = replayed.goodBytes;
      }
      await this.#checkPutBack(snapshot);
      const journalIdentity = journal?.identity ?? "none";
      // What this store kept for appending was read from other files (another process wrote since):
      // it is stale, and `#load` must not take it for what `#seen` now describes.
      if (this.#seen?.identity !== file.identity || this.#seen.journal !== journalIdentity)
        this.#current = undefined;
      this.#seen = {
        identity: file.identity,
        stateBytes: file.size,
        journal: journalIdentity,
        journalBytes,
        lineage: snapshot.lineage,
        serial: snapshot.serial,
      };
      return { snapshot, torn };
    }
  }

  /** The journal's bytes and identity, or undefined if there is none. */
  async #readJournal(): Promise<{ bytes: Buffer; identity: string } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.journalPath, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateIoError(`${this.location}.journal`, "read", err);
    }
    try {
      const st = await handle.stat();
      const bytes = await handle.readFile();
      return { bytes, identity: `${st.ino}:${bytes.length}` };
    } catch (err) {
      throw new StateIoError(`${this.location}.journal`, "read", err);
    } finally {
      await handle.close();
    }
  }

  /**
   * Makes the current file the backup: a hard link renamed over `<file>.backup` (no copy; the state
   * file is always replaced, never changed in place). Copies where hard links are not supported.
   */
  async #keepBackup(): Promise<void> {
    const tmp = join(
      dirname(this.backupPath),
      `.${basename(this.backupPath)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
    );
    try {
      await link(this.path, tmp);
      await rename(tmp, this.backupPath);
    } catch (err) {
      await rm(tmp, { force: true });
      if (!NO_HARD_LINKS.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
      await writeFileAtomic(this.backupPath, await readFile(this.path, "utf8"));
    }
  }

  /** The file's text and identity, or undefined if it does not exist. */
  async #readFile(): Promise<{ text: string; identity: string; size: number } | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateIoError(this.location, "read", err);
    }
    try {
      const st = await handle.stat();
      if (st.isDirectory()) throw new StateCorruptError(this.location, "is a directory, not a file");
      return { text: await handle.readFile("utf8"), identity: identityOf(st), size: st.size };
    } catch (err) {
      if (err instanceof StateCorruptError) throw err;
      throw new StateIoError(this.location, "read", err);
    } finally {
      await handle.close();
    }
  }

  #parse(text: string): StateSnapshot {
    const parsed = parseState(text);
    // A state of a newer tgw is not damaged: only "upgrade tgw", never advice to move it away.
    if ("problem" in parsed)
      throw new StateCorruptError(
        this.location,
        parsed.problem,
        parsed.newer ? undefined : RECOVERY(this.location),
      );
    const snapshot = parsed.snapshot;
    if (this.#stack !== undefined && snapshot.stack !== this.#stack) {
      throw new StateConflictError(
        this.location,
        `belongs to stack "${snapshot.stack}", not "${this.#stack}": set \`stack: ${snapshot.stack}\` in the configuration, or use another state file (--state) for stack "${this.#stack}"`,
      );
    }
    return snapshot;
  }
}
