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
  async acquire(opts: {
    timeoutMs: number;
    holder: string;
    signal?: AbortSignal;
    onLost?: (err: Error) => void;
  }): Promise<Unlock> {
    const { location, staleMs, warn } = this.#opts;
    try {
      await mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StateIoError(location, "lock", err);
    }
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    let delay = FIRST_POLL_MS;
    let declaredGone: string | undefined;
    let lost = false;

    for (;;) {
      opts.signal?.throwIfAborted();
      const before = await statOrUndefined(this.lockPath);
      let release: () => Promise<void>;
      try {
        release = await properLock(this.#file, {
          realpath: false,
          lockfilePath: this.lockPath,
          stale: staleMs,
          retries: 0,
          onCompromised: (err) => {
            lost = true;
            heldHere.delete(this.lockPath);
            infoFiles.delete(this.lockPath);
            warn(
              `lost the lock of state ${location}: another process took it over as stale (${err.message})`,
            );
            opts.onLost?.(err);
          },
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw new StateIoError(location, "lock", err);
        const info = await readLockInfo(this.infoPath);
        const current = await statOrUndefined(this.lockPath);
        if (
          info !== undefined &&
          current !== undefined &&
          declaredGone !== info.lockId &&
          holderIsGone(info, current, heldHere.has(this.lockPath))
        ) {
          // Age the directory so proper-lockfile's own stale handling removes and retakes it.
          declaredGone = info.lockId;
          await utimes(this.lockPath, 0, 0).catch(() => {});
          continue;
        }
        const now = Date.now();
        if (now >= deadline) {
          const holder = current ? await this.#describeHolder(info, current) : info;
          throw new LockTimeoutError(location, holder, Math.max(0, opts.timeoutMs));
        }
        await sleep(
          Math.min(delay, deadline - now),
          undefined,
          opts.signal ? { signal: opts.signal } : {},
        ).catch((err: unknown) => {
          throw opts.signal?.aborted ? opts.signal.reason : err;
        });
        delay = Math.min(delay * 2, MAX_POLL_MS);
        continue;
      }

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
        await writeLockInfo(this.infoPath, opts.holder, await stat(this.lockPath));
        infoFiles.set(this.lockPath, this.infoPath);
        onExitRemoveInfo();
      } catch (err) {
        heldHere.delete(this.lockPath);
        await release().catch(() => {});
        throw new StateIoError(location, "lock", err);
      }

      let done: Promise<void> | undefined;
      return () => {
        done ??= (async () => {
          heldHere.delete(this.lockPath);
          infoFiles.delete(this.lockPath);
          // After a takeover the description is the new holder's: leave it.
          if (!lost) await rm(this.infoPath, { force: true });
          try {
            await release();
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            if (code !== "ERELEASED" && code !== "ENOTACQUIRED")
              throw new StateIoError(location, "unlock", err);
          }
        })();
        return done;
      };
    }
  }
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}
