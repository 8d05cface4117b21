/**
 * An exclusive lock on a file, between processes (and between holders in one process), built on
 * proper-lockfile: the lock is the directory `<file>.lock` (mkdir is atomic), refreshed by its holder
 * every `staleMs / 2`. A waiter polls with backoff until its timeout.
 *
 * Stale locks are taken over, with a warning naming the previous holder:
 * - at once when the holder ran on this host and its process is gone (killed, crashed);
 * - otherwise when the lock has not been refreshed for `staleMs` (proper-lockfile's stale detection:
 *   the holder is hung, suspended, or on another host and dead).
 * If a holder's lock is taken over while it still runs (its event loop blocked for `staleMs`), the holder
 * is told through `onLost` and its later writes must not rely on the lock.
 */
import { rmSync, type Stats } from "node:fs";
import { mkdir, rm, stat, utimes } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { lock as properLock } from "proper-lockfile";
import { describeHolder, type LockHolder, LockTimeoutError, StateIoError } from "./errors.js";
import { holderIsGone, lockIdOf, readLockInfo, writeLockInfo } from "./lock-info.js";
import type { Unlock } from "./store.js";

/** Default time after which a lock that is not refreshed is stale (ms). */
export const DEFAULT_STALE_MS = 10_000;

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 1_000;
/**
 * How long a taker that gives up waits for the holder's description to appear: a holder writes it
 * just after creating the lock directory, and a message naming the holder is worth a short wait.
 */
const DESCRIPTION_GRACE_MS = 500;

/** Lock directories this process holds, by absolute path (to judge descriptions carrying our pid). */
const heldHere = new Set<string>();
/** Descriptions to remove if the process exits without unlocking (proper-lockfile removes the directories). */
const infoFiles = new Map<string, string>();
let exitHookInstalled = false;

function onExitRemoveInfo(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const info of infoFiles.values()) rmSync(info, { force: true });
  });
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
    this.#opts = { staleMs: DEFAULT_STALE_MS, ...opts };
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
   * `onLost` is called if the lock is later taken over by someone else while held.
   * @returns an `Unlock` that is safe to call more than once.
   * An aborted `signal` ends the wait at once.
   * @throws LockTimeoutError naming the holder when the wait runs out; StateIoError on a system error;
   *   `signal.reason` when aborted.
   */
  async acquire(opts: AcquireOptions): Promise<Unlock> {
    const { location } = this.#opts;
    try {
      await mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StateIoError(location, "lock", err);
    }
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    const attempt: Attempt = { delay: FIRST_POLL_MS, lost: false };
    for (;;) {
      opts.signal?.throwIfAborted();
      const before = await statOrUndefined(this.lockPath);
      const release = await this.#tryLock(opts, attempt);
      if (release === undefined) {
        await this.#waitForHolder(opts, attempt, deadline);
        continue;
      }
      await this.#describeTaken(opts.holder, release, before, attempt.declaredGone);
      return this.#unlockOnce(release, attempt);
    }
  }

  /**
   * One try at the lock directory (proper-lockfile, no retries): its release, or undefined when it is
   * held. A takeover while held later sets `attempt.lost`, warns and calls `onLost`.
   * @throws StateIoError on a system error.
   */
  async #tryLock(opts: AcquireOptions, attempt: Attempt): Promise<(() => Promise<void>) | undefined> {
    const { location, staleMs, warn } = this.#opts;
    try {
      return await properLock(this.#file, {
        realpath: false,
        lockfilePath: this.lockPath,
        stale: staleMs,
        retries: 0,
        onCompromised: (err) => {
          attempt.lost = true;
          heldHere.delete(this.lockPath);
          infoFiles.delete(this.lockPath);
          warn(`lost the lock of state ${location}: another process took it over as stale (${err.message})`);
          opts.onLost?.(err);
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
    release: () => Promise<void>,
    before: Stats | undefined,
    declaredGone: string | undefined,
  ): Promise<void> {
    const { location, staleMs, warn } = this.#opts;
    heldHere.add(this.lockPath);
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
      await writeLockInfo(this.infoPath, holder, await stat(this.lockPath));
      infoFiles.set(this.lockPath, this.infoPath);
      onExitRemoveInfo();
    } catch (err) {
      heldHere.delete(this.lockPath);
      await release().catch(() => {});
      throw new StateIoError(location, "lock", err);
    }
  }

  /** The `Unlock` of a taken lock: removes the description (unless taken over) and releases, once. */
  #unlockOnce(release: () => Promise<void>, attempt: Attempt): Unlock {
    let done: Promise<void> | undefined;
    return () => {
      done ??= (async () => {
        heldHere.delete(this.lockPath);
        infoFiles.delete(this.lockPath);
        // After a takeover the description is the new holder's: leave it.
        if (!attempt.lost) await rm(this.infoPath, { force: true });
        try {
          await release();
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== "ERELEASED" && code !== "ENOTACQUIRED")
            throw new StateIoError(this.#opts.location, "unlock", err);
        }
      })();
      return done;
    };
  }
}

/** Options of `FileLock.acquire`. */
interface AcquireOptions {
  timeoutMs: number;
  holder: string;
  signal?: AbortSignal;
  onLost?: (err: Error) => void;
}

/** What one `acquire` carries from try to try: the poll delay, the holder declared gone, a takeover. */
interface Attempt {
  delay: number;
  /** The lock id of a holder found gone, whose directory was aged (not twice for one holder). */
  declaredGone?: string;
  /** Set when another process took the lock over while held. */
  lost: boolean;
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}
