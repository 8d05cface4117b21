/**
 * The local state store: one JSON file, by default `<config dir>/.tgw/state.json` (./location.ts).
 *
 * - Format: ./format.ts (stable, sorted 2-space JSON; closed, so no secret can hide in it).
 * - Writes are atomic (temporary file, fsync, rename, fsync of the directory) and compare-and-swap: a
 *   write is refused (StateConflictError) when the file's lineage or serial moved since the snapshot
 *   was read. The previous version is kept as `<file>.backup`. Files are mode 0600, the directory 0700.
 * - A file that cannot be read as a state is a StateCorruptError and is never overwritten.
 * - `lock()` is exclusive between processes (./file-lock.ts: `<file>.lock`, holder in `<file>.lock-info`).
 *   `write()` by a store that does not hold the lock takes it for the time of the write, so two writers
 *   can never interleave their check and their rename.
 * @see docs/state.md
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, link, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { removeStaleTempFiles, writeFileAtomic } from "./atomic-write.js";
import { StateConflictError, StateCorruptError, StateIoError } from "./errors.js";
import { DEFAULT_STALE_MS, FileLock } from "./file-lock.js";
import { orderedSnapshot, parseState, serializeState, snapshotProblems } from "./format.js";
import { processIsAlive } from "./lock-info.js";
import { emptySnapshot } from "./snapshot.js";
import type { StateImport, StateSnapshot, StateStore, Unlock } from "./store.js";

/** How long `write()` waits for the lock when its store does not hold it (ms). */
export const WRITE_LOCK_TIMEOUT_MS = 10_000;

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
}

/** Errors of `link()` on file systems without hard links (the backup is then a copy). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "EMLINK", "ENOSYS"]);

/** What changes whenever the file is replaced or edited: device, inode, size, modification and change times. */
function identityOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

const RECOVERY = (location: string) =>
  `restore ${location}.backup (the version before the last write), or move the file away to rebuild the state from the ownership markers on the next plan`;

/** A state kept in a local JSON file. */
export class FileStateStore implements StateStore, StateImport {
  /** The path as given, relative to the current directory when inside it (`.tgw/state.json`). */
  readonly location: string;
  /** Absolute path of the state file. */
  readonly path: string;
  /** Absolute path of the previous version. */
  readonly backupPath: string;
  readonly #stack: string | undefined;
  readonly #lock: FileLock;
  /** True while an `Unlock` returned by `lock()` is outstanding and the lock was not lost. */
  #held = false;
  /**
   * Lineage of the empty snapshot this store hands out while no file exists, so that two reads with
   * nothing stored in between compare equal. Forgotten once a file is seen or written.
   */
  #emptyLineage: string | undefined;
  /** Identity and version of the file as this store last read or wrote it. */
  #seen: { identity: string; lineage: string; serial: number } | undefined;
  /** Serialises this store's writes: each one checks, then renames. */
  #writing: Promise<unknown> = Promise.resolve();

  /**
   * @param path the state file, e.g. `<config dir>/.tgw/state.json`; it and its directory are created on
   * the first write.
   */
  constructor(path: string, opts: FileStateStoreOptions = {}) {
    this.path = resolve(path);
    this.backupPath = `${this.path}.backup`;
    const rel = relative(process.cwd(), this.path);
    this.location = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : this.path;
    this.#stack = opts.stack;
    const warn = opts.warn ?? ((m: string) => process.stderr.write(`Warning: ${m}\n`));
    this.#lock = new FileLock(this.path, {
      location: this.location,
      staleMs: opts.staleMs ?? DEFAULT_STALE_MS,
      warn,
    });
  }

  /**
   * The stored snapshot (a fresh copy), or `emptySnapshot(stack)` when the file does not exist (the
   * same lineage on every read of this store until a file appears, so a caller can tell nothing moved).
   * @throws StateCorruptError if the file is not a state; StateConflictError if it is another stack's;
   * StateIoError if it cannot be read.
   */
  async read(): Promise<StateSnapshot> {
    const stored = await this.#readStored();
    if (stored !== undefined) {
      this.#emptyLineage = undefined;
      return stored;
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
    const run = this.#writing.then(
      () => this.#write(snapshot),
      () => this.#write(snapshot),
    );
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
    const release = await this.#lock.acquire({
      ...opts,
      onLost: () => {
        this.#held = false;
      },
    });
    this.#held = true;
    // Temporary files of a writer that was killed (only the lock holder writes, so none is in use).
    for (const p of [this.path, this.backupPath]) await removeStaleTempFiles(p, processIsAlive);
    let done: Promise<void> | undefined;
    return () => {
      done ??= (async () => {
        this.#held = false;
        await release();
      })();
      return done;
    };
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
    const unlock = this.#held
      ? undefined
      : await this.#lock.acquire({ timeoutMs: WRITE_LOCK_TIMEOUT_MS, holder: "tgw (writing the state)" });
    try {
      const stored = await this.#readStored();
      if (stored !== undefined) {
        if (serializeState(stored) === text) return;
        throw new StateConflictError(
          this.location,
          `already holds a state (lineage ${stored.lineage}, serial ${stored.serial}): a state is migrated only into an empty one`,
        );
      }
      try {
        await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        await writeFileAtomic(this.path, text);
      } catch (err) {
        throw new StateIoError(this.location, "write", err);
      }
      this.#emptyLineage = undefined;
    } finally {
      await unlock?.();
    }
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

    const unlock = this.#held
      ? undefined
      : await this.#lock.acquire({ timeoutMs: WRITE_LOCK_TIMEOUT_MS, holder: "tgw (writing the state)" });
    try {
      const stored = await this.#storedVersion();
      if (stored === undefined) {
        if (snapshot.serial !== 0) {
          throw new StateConflictError(
            this.location,
            `was deleted since it was read (at serial ${snapshot.serial}); run the command again`,
          );
        }
      } else {
        if (stored.lineage !== snapshot.lineage) {
          throw new StateConflictError(
            this.location,
            `has lineage ${stored.lineage}, not ${snapshot.lineage}: it was created or replaced since it was read; run the command again`,
          );
        }
        if (stored.serial !== snapshot.serial) {
          throw new StateConflictError(
            this.location,
            `changed since it was read (read at serial ${snapshot.serial}, now serial ${stored.serial}): another tgw wrote it; run the command again`,
          );
        }
      }
      try {
        await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        if (stored !== undefined) await this.#keepBackup();
        await writeFileAtomic(this.path, text);
        this.#seen = {
          identity: identityOf(await stat(this.path)),
          lineage: next.lineage,
          serial: next.serial,
        };
      } catch (err) {
        this.#seen = undefined;
        throw new StateIoError(this.location, "write", err);
      }
    } finally {
      await unlock?.();
    }
    this.#emptyLineage = undefined;
    return next;
  }

  /** The stored snapshot, or undefined if there is no file. */
  async #readStored(): Promise<StateSnapshot | undefined> {
    const file = await this.#readFile();
    if (file === undefined) return undefined;
    const snapshot = this.#parse(file.text);
    this.#seen = { identity: file.identity, lineage: snapshot.lineage, serial: snapshot.serial };
    return snapshot;
  }

  /**
   * Lineage and serial of the stored file, or undefined if there is none. Under the lock, a file whose
   * identity (inode, size, times) is the one this store last read or wrote is not read again: every
   * writer replaces the file by renaming a new one, so an unchanged identity means an unchanged state.
   */
  async #storedVersion(): Promise<{ lineage: string; serial: number } | undefined> {
    let current: Stats;
    try {
      current = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new StateIoError(this.location, "read", err);
    }
    if (this.#seen !== undefined && this.#seen.identity === identityOf(current)) return this.#seen;
    return this.#readStored();
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
  async #readFile(): Promise<{ text: string; identity: string } | undefined> {
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
      return { text: await handle.readFile("utf8"), identity: identityOf(st) };
    } catch (err) {
      if (err instanceof StateCorruptError) throw err;
      throw new StateIoError(this.location, "read", err);
    } finally {
      await handle.close();
    }
  }

  #parse(text: string): StateSnapshot {
    const parsed = parseState(text);
    if ("problem" in parsed)
      throw new StateCorruptError(this.location, parsed.problem, RECOVERY(this.location));
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
