/**
 * An exclusive lock on a file, between processes (and between holders in one process), built on
 * proper-lockfile: the lock is the directory `<file>.lock` (mkdir is atomic), refreshed by its holder
 * every `staleMs / 2`. A waiter polls with backoff until its timeout.
 *
 * Stale locks are taken over, with a warning naming the previous holder:
 * - at once when the holder ran on this host and its process is gone (killed, crashed);
 * - otherwise when the lock has not been refreshed for `staleMs` (proper-lockfile's stale detection:
 *   the holder is hung, suspended, or on another host and dead).
 *
 * Fencing: a holder frozen for `staleMs` (SIGSTOP, a suspended VM) may have lost its lock by the time
 * it runs again, before any timer of its own has noticed. `HeldFileLock.assertHeld` therefore checks
 * the lock directory itself (its identity, and a modification time this holder gave it recently
 * enough), not a flag; the state store calls it before each state write, and the engine before each
 * API write. A holder whose lock was taken over never removes the new holder's directory or
 * description.
 */
import * as fs from "node:fs";
import { readFileSync, rmSync, type Stats } from "node:fs";
import { mkdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { lock as properLock } from "proper-lockfile";
import {
  describeHolder,
  type LockHolder,
  LockTimeoutError,
  StateIoError,
  StateLockLostError,
} from "./errors.js";
import { holderIsGone, lockIdOf, readLockInfo, writeLockInfo } from "./lock-info.js";

/** Default time after which a lock that is not refreshed is stale (ms). */
export const DEFAULT_STALE_MS = 10_000;
/** proper-lockfile's least stale time (ms): a shorter one is taken as this. */
export const MIN_STALE_MS = 2_000;

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 1_000;
/**
 * How long a taker that gives up waits for the holder's description to appear: a holder writes it
 * just after creating the lock directory, and a message naming the holder is worth a short wait.
 */
const DESCRIPTION_GRACE_MS = 500;

/**
 * A holder that has not seen its lock refreshed for `staleMs` less this margin counts it lost: the
 * margin covers the time between a check and the write it lets through, and clocks a little apart.
 */
function leaseMarginMs(staleMs: number): number {
  return Math.min(1_000, staleMs / 10);
}

/** A holder checks its lock directory at most this often while its refreshes are on time (ms). */
function checkEveryMs(staleMs: number): number {
  return Math.min(250, staleMs / 8);
}

/**
 * Lock directories this process holds, by absolute path, with their holder (to judge descriptions
 * carrying our pid): a holder that lost its lock removes only its own entry, not its successor's.
 */
const heldHere = new Map<string, HeldFileLock>();
/**
 * Descriptions to remove if the process exits without unlocking (proper-lockfile removes the
 * directories), with what this process wrote there: one now naming another holder is left alone.
 */
const infoFiles = new Map<string, { path: string; info: LockHolder }>();
let exitHookInstalled = false;

function onExitRemoveInfo(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const { path, info } of infoFiles.values()) {
      try {
        if (sameHolder(JSON.parse(readFileSync(path, "utf8")), info)) rmSync(path, { force: true });
      } catch {
        // Gone or unreadable: nothing of ours to remove.
      }
    }
  });
}

/** True when the parsed description `value` is `info` (the same lock, process and time). */
function sameHolder(value: unknown, info: LockHolder): boolean {
  const v = value as Partial<LockHolder> | null;
  return (
    v?.lockId === info.lockId && v.pid === info.pid && v.hostname === info.hostname && v.since === info.since
  );
}

/** How a `FileLock` reports and judges staleness. */
export interface FileLockOptions {
  /** Name of the locked thing for messages (`.tgw/state.json`). */
  location: string;
  /** A lock not refreshed for this long is stale (ms; proper-lockfile's minimum is 2000). */
  staleMs?: number;
  /** Receives notes: a stale lock taken over, a lock lost. */
  warn: (message: string) => void;
}

/** The exclusive lock of one file (which need not exist). */
export class FileLock {
  /** The lock directory: `<file>.lock`. */
  readonly lockPath: string;
  /** The holder description: `<file>.lock-info`. */
  readonly infoPath: string;
  readonly #file: string;
  readonly #opts: Required<FileLockOptions>;

  constructor(file: string, opts: FileLockOptions) {
    this.#file = resolve(file);
    this.lockPath = `${this.#file}.lock`;
    this.infoPath = `${this.#file}.lock-info`;
    // proper-lockfile takes no less than its minimum; fencing must judge by the same time.
    this.#opts = { ...opts, staleMs: Math.max(MIN_STALE_MS, opts.staleMs ?? DEFAULT_STALE_MS) };
  }

  /**
   * The description of the holder of the lock directory `current`: `info` if it is that holder's,
   * else what that holder writes within `DESCRIPTION_GRACE_MS` (it has just taken the lock), else
   * undefined (a description left by an earlier holder would name the wrong process).
   */
  async #describeHolder(info: LockHolder | undefined, current: Stats): Promise<LockHolder | undefined> {
    const id = lockIdOf(current);
    const until = Date.now() + DESCRIPTION_GRACE_MS;
    let described = info;
    while (described?.lockId !== id && Date.now() < until) {
      await sleep(20);
      described = await readLockInfo(this.infoPath);
    }
    return described?.lockId === id ? described : undefined;
  }

  /**
   * Takes the lock, waiting up to `timeoutMs` (0: one attempt). Creates the file's directory if missing.
   * `holder` names what the taker runs (`tgw apply`); pid, host and time are added.
   * @returns the lock held: `assertHeld()` before each write, `release()` (safe to call twice) at the end.
   * An aborted `signal` ends the wait at once.
   * @throws LockTimeoutError naming the holder when the wait runs out; StateIoError on a system error;
   *   `signal.reason` when aborted.
   */
  async acquire(opts: AcquireOptions): Promise<HeldFileLock> {
    const { location } = this.#opts;
    try {
      await mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StateIoError(location, "lock", err);
    }
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    const attempt: Attempt = { delay: FIRST_POLL_MS };
    for (;;) {
      opts.signal?.throwIfAborted();
      const before = await statOrUndefined(this.lockPath);
      const held = new HeldFileLock(this.lockPath, this.infoPath, this.#opts);
      const release = await this.#tryLock(held);
      if (release === undefined) {
        await this.#waitForHolder(opts, attempt, deadline);
        continue;
      }
      await this.#describeTaken(opts.holder, held, release, before, attempt.declaredGone);
      return held;
    }
  }

  /**
   * One try at the lock directory (proper-lockfile, no retries, through `held`'s file system, which
   * notes each refresh and never removes a directory that is no longer `held`'s): its release, or
   * undefined when it is held. A takeover found by a refresh later marks `held` lost and warns.
   * @throws StateIoError on a system error.
   */
  async #tryLock(held: HeldFileLock): Promise<(() => Promise<void>) | undefined> {
    const { location, staleMs, warn } = this.#opts;
    try {
      return await properLock(this.#file, {
        realpath: false,
        lockfilePath: this.lockPath,
        stale: staleMs,
        retries: 0,
        fs: held.fileSystem,
        onCompromised: (err) => {
          held.takenOver();
          warn(`lost the lock of state ${location}: another process took it over as stale (${err.message})`);
        },
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw new StateIoError(location, "lock", err);
      return undefined;
    }
  }

  /**
   * After a try found the lock held: ages the directory of a holder that is gone (once per holder, so
   * proper-lockfile takes it over as stale), else sleeps the next poll delay.
   * @throws LockTimeoutError naming the holder once `deadline` has passed; `signal.reason` when aborted.
   */
  async #waitForHolder(opts: AcquireOptions, attempt: Attempt, deadline: number): Promise<void> {
    const info = await readLockInfo(this.infoPath);
    const current = await statOrUndefined(this.lockPath);
    if (
      info !== undefined &&
      current !== undefined &&
      attempt.declaredGone !== info.lockId &&
      holderIsGone(info, current, heldHere.has(this.lockPath))
    ) {
      // Age the directory so proper-lockfile's own stale handling removes and retakes it.
      attempt.declaredGone = info.lockId;
      await utimes(this.lockPath, 0, 0).catch(() => {});
      return;
    }
    const now = Date.now();
    if (now >= deadline) {
      const holder = current ? await this.#describeHolder(info, current) : info;
      throw new LockTimeoutError(this.#opts.location, holder, Math.max(0, opts.timeoutMs));
    }
    await sleep(
      Math.min(attempt.delay, deadline - now),
      undefined,
      opts.signal ? { signal: opts.signal } : {},
    ).catch((err: unknown) => {
      throw opts.signal?.aborted ? opts.signal.reason : err;
    });
    attempt.delay = Math.min(attempt.delay * 2, MAX_POLL_MS);
  }

  /**
   * Once the lock is taken: warns when it was taken over from a holder whose description was left
   * (why: gone, stale, or ended without releasing), and writes this holder's description.
   * @throws StateIoError (the lock released) when the description cannot be written.
   */
  async #describeTaken(
    holder: string,
    held: HeldFileLock,
    release: () => Promise<void>,
    before: Stats | undefined,
    declaredGone: string | undefined,
  ): Promise<void> {
    const { location, staleMs, warn } = this.#opts;
    heldHere.set(this.lockPath, held);
    try {
      const left = await readLockInfo(this.infoPath);
      if (left !== undefined) {
        const why =
          declaredGone === left.lockId
            ? "its process is no longer running"
            : before !== undefined && lockIdOf(before) === left.lockId
              ? `it had not refreshed the lock for over ${staleMs / 1000}s (crashed, hung or suspended)`
              : "it ended without releasing it";
        warn(`took over the lock of state ${location} from ${describeHolder(left)}: ${why}`);
      }
      const taken = await stat(this.lockPath);
      const info = await writeLockInfo(this.infoPath, holder, taken);
      held.taken(taken, info, release);
      infoFiles.set(this.lockPath, { path: this.infoPath, info });
      onExitRemoveInfo();
    } catch (err) {
      held.forget();
      await release().catch(() => {});
      throw new StateIoError(location, "lock", err);
    }
  }
}

/**
 * One holding of a `FileLock`, from its taking to its release: what proves it is still this holder's,
 * and how to give it back.
 */
export class HeldFileLock {
  readonly #lockPath: string;
  readonly #infoPath: string;
  readonly #location: string;
  readonly #staleMs: number;
  /** Identity of the lock directory taken (`lockIdOf`); undefined until it is taken. */
  #lockId: string | undefined;
  /** What this holder wrote to the description. */
  #info: LockHolder | undefined;
  #release: (() => Promise<void>) | undefined;
  #released: Promise<void> | undefined;
  /**
   * The modification times this holder gave the lock directory, newest last (a refresh whose write
   * has not returned yet included): a directory with another one was touched by someone else.
   */
  readonly #mtimes: number[] = [];
  /** Set once the lock is known lost: every later check and write fails with it. */
  #lost: StateLockLostError | undefined;
  /** When the directory was last found this holder's: wall clock and monotonic clock (ms). */
  #checkedAt = Number.NEGATIVE_INFINITY;
  #checkedAtMono = Number.NEGATIVE_INFINITY;
  /** Wall-clock time until which the last check lets writes through (the refresh seen, plus the lease). */
  #leaseEnd = Number.NEGATIVE_INFINITY;
  #checking: Promise<void> | undefined;

  /** The file system proper-lockfile works through for this holding (see `FileLock.#tryLock`). */
  readonly fileSystem: object;

  constructor(lockPath: string, infoPath: string, opts: Required<FileLockOptions>) {
    this.#lockPath = lockPath;
    this.#infoPath = infoPath;
    this.#location = opts.location;
    this.#staleMs = opts.staleMs;
    this.fileSystem = {
      mkdir: fs.mkdir,
      stat: fs.stat,
      utimes: (path: string, atime: Date, mtime: Date, done: (err: Error | null) => void) => {
        this.#noteMtime(mtime.getTime());
        fs.utimes(path, atime, mtime, done);
      },
      rmdir: (path: string, done: (err: Error | null) => void) => {
        if (this.#lockId === undefined) return fs.rmdir(path, done);
        fs.stat(path, (err, st) => {
          if (err || !this.#owns(st)) return done(null);
          fs.rmdir(path, done);
        });
      },
      rmdirSync: (path: string) => {
        if (this.#lockId !== undefined && !this.#owns(fs.statSync(path))) return;
        fs.rmdirSync(path);
      },
    };
  }

  /** Called once the directory is taken and described. */
  taken(lockStat: Stats, info: LockHolder, release: () => Promise<void>): void {
    this.#lockId = lockIdOf(lockStat);
    this.#info = info;
    this.#release = release;
    this.#noteMtime(lockStat.mtime.getTime());
    this.#confirmed(lockStat);
  }

  /** Takes this holding out of the process's table of held locks (once lost or released). */
  forget(): void {
    if (heldHere.get(this.#lockPath) === this) heldHere.delete(this.#lockPath);
    if (infoFiles.get(this.#lockPath)?.info === this.#info) infoFiles.delete(this.#lockPath);
  }

  /** Called when proper-lockfile's refresh found the directory replaced or touched by someone else. */
  takenOver(): void {
    this.#lose(this.#takeoverReason());
  }

  /**
   * Resolves while the lock is this holder's: at once when the directory was found so within the last
   * `checkEveryMs` (by both clocks: a suspended machine stops the monotonic one) and the refresh then
   * seen is recent enough; otherwise after looking at the directory again. Resolves when released.
   * @throws StateLockLostError when the directory is gone, is another one (taken over), carries a
   * modification time this holder did not give it, or was last refreshed too long ago for the lock to
   * be safe (another process may take it over at any moment); StateIoError if it cannot be read.
   */
  assertHeld(): Promise<void> {
    if (this.#lost !== undefined) return Promise.reject(this.#lost);
    if (this.#released !== undefined) return Promise.resolve();
    const now = Date.now();
    const every = checkEveryMs(this.#staleMs);
    if (
      now >= this.#checkedAt &&
      now - this.#checkedAt < every &&
      performance.now() - this.#checkedAtMono < every &&
      now < this.#leaseEnd
    )
      return Promise.resolve();
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  /**
   * Without I/O: true while the lease seen by the last check has not run out by either clock (the
   * directory refreshed then, plus the stale time less the margin), or once released; false once lost.
   */
  stillConfirmed(): boolean {
    if (this.#lost !== undefined) return false;
    if (this.#released !== undefined) return true;
    const left = this.#leaseEnd - this.#checkedAt;
    return Date.now() < this.#leaseEnd && performance.now() - this.#checkedAtMono < left;
  }

  /**
   * Releases the lock, once: removes the description and the directory, each only while it is still
   * this holder's (after a takeover both are the new holder's).
   * @throws StateIoError when the directory cannot be removed.
   */
  release(): Promise<void> {
    this.#released ??= (async () => {
      const described = await readFile(this.#infoPath, "utf8")
        .then((text) => JSON.parse(text) as unknown)
        .catch(() => undefined);
      if (this.#info !== undefined && sameHolder(described, this.#info))
        await rm(this.#infoPath, { force: true });
      try {
        await this.#release?.();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "ERELEASED" && code !== "ENOTACQUIRED")
          throw new StateIoError(this.#location, "unlock", err);
      } finally {
        // Only now: a waiter of this process that saw the directory still there, not held here, and
        // its description ours, would take it for a gone holder's and take it over.
        this.forget();
      }
    })();
    return this.#released;
  }

  async #check(): Promise<void> {
    let st: Stats;
    try {
      st = await stat(this.#lockPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        throw new StateIoError(this.#location, "lock", err);
      throw this.#lose(this.#takeoverReason());
    }
    if (this.#lost !== undefined) throw this.#lost;
    if (!this.#owns(st)) throw this.#lose(this.#takeoverReason());
    const age = Date.now() - st.mtime.getTime();
    if (age >= this.#staleMs - leaseMarginMs(this.#staleMs)) {
      throw this.#lose(
        `this process did not refresh it for ${Math.round(age / 100) / 10} s, being frozen, suspended or hung, so another process may take it over as stale at any moment`,
      );
    }
    this.#confirmed(st);
  }

  /** Notes that `st`, this holder's directory, was seen now. */
  #confirmed(st: Stats): void {
    this.#checkedAt = Date.now();
    this.#checkedAtMono = performance.now();
    this.#leaseEnd = st.mtime.getTime() + this.#staleMs - leaseMarginMs(this.#staleMs);
  }

  /** True when `st` is the directory this holder took, with a modification time this holder gave it. */
  #owns(st: Stats): boolean {
    return lockIdOf(st) === this.#lockId && this.#mtimes.includes(st.mtime.getTime());
  }

  #noteMtime(ms: number): void {
    this.#mtimes.push(ms);
    if (this.#mtimes.length > 3) this.#mtimes.shift();
  }

  /** Why the lock is lost once its directory is gone or another's. */
  #takeoverReason(): string {
    return `this process did not refresh it for over ${this.#staleMs / 1000} s, being frozen, suspended or hung, and another process took it over as stale or removed it`;
  }

  /** Marks the lock lost (once: the first reason stays) and returns the error every write now gets. */
  #lose(why: string): StateLockLostError {
    if (this.#lost === undefined) {
      this.#lost = new StateLockLostError(this.#location, why);
      this.forget();
    }
    return this.#lost;
  }
}

/** Options of `FileLock.acquire`. */
interface AcquireOptions {
  timeoutMs: number;
  holder: string;
  signal?: AbortSignal;
}

/** What one `acquire` carries from try to try: the poll delay, the holder declared gone. */
interface Attempt {
  delay: number;
  /** The lock id of a holder found gone, whose directory was aged (not twice for one holder). */
  declaredGone?: string;
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}
