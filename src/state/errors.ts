/**
 * The errors of the state store. All are `TgwError`s with exit code 1; their messages name the state
 * location so that a user with several stacks knows which one is meant.
 *
 * - `LockTimeoutError` (`state_locked`): another process holds the lock and the wait ran out.
 * - `StateConflictError` (`state_conflict`): the stored state is not the one the caller read (moved since
 *   read, another lineage, another stack): writing would lose someone else's changes.
 * - `StateCorruptError` (`state_corrupt`): the stored state cannot be read; it is never overwritten.
 */
import { TgwError } from "../errors.js";

/** Who holds a lock, as written next to it (`<state>.lock-info`) by the holder. */
export interface LockHolder {
  /** What the holder runs, e.g. `tgw apply`. */
  holder: string;
  pid: number;
  hostname: string;
  /** RFC 3339 time the lock was taken. */
  since: string;
  /** Identity of the lock directory taken (inode and birth time), so a stale description is recognised. */
  lockId: string;
}

/**
 * One line describing a holder: `tgw apply (pid 1234 on host-a, since 10:02:11)`. The time is local;
 * the date is added when it is not today.
 */
export function describeHolder(info: LockHolder, now: Date = new Date()): string {
  return `${info.holder} (pid ${info.pid} on ${info.hostname}, since ${localTime(info.since, now)})`;
}

function localTime(iso: string, now: Date): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
  const sameDay = t.toDateString() === now.toDateString();
  return sameDay ? time : `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${time}`;
}

/** `30s`, `1.5s`, `2m`, `2m30s`: a wait, for messages. */
function waited(ms: number): string {
  const s = Math.round(ms / 100) / 10;
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest === 0 ? `${m}m` : `${m}m${rest}s`;
}

/**
 * The lock of a state is held by someone else and the wait (`timeoutMs`) ran out. Message:
 * `state .tgw/state.json is locked by tgw apply (pid 1234 on host-a, since 10:02:11); waited 30s`.
 */
export class LockTimeoutError extends TgwError {
  readonly location: string;
  /** The holder as described in the lock info file; undefined if it could not be read. */
  readonly lockHolder: LockHolder | undefined;
  /** The timeout that ran out (ms). */
  readonly waitedMs: number;

  constructor(location: string, lockHolder: LockHolder | undefined, waitedMs: number) {
    const who =
      lockHolder === undefined
        ? "another process (it left no description of itself)"
        : describeHolder(lockHolder);
    const wait = waitedMs <= 0 ? "did not wait (lock timeout 0)" : `waited ${waited(waitedMs)}`;
    super("state_locked", `state ${location} is locked by ${who}; ${wait}`);
    this.location = location;
    this.lockHolder = lockHolder;
    this.waitedMs = waitedMs;
  }
}

/**
 * The stored state is not the one the caller expects, so writing would overwrite someone else's
 * changes: its serial or lineage moved since it was read, it was deleted, or it belongs to another stack.
 * Reading again (and planning again) resolves it.
 */
export class StateConflictError extends TgwError {
  readonly location: string;

  /** `detail` completes `state <location> ...`, e.g. `changed since it was read (serial 4, now 5)`. */
  constructor(location: string, detail: string) {
    super("state_conflict", `state ${location} ${detail}`);
    this.location = location;
  }
}

/**
 * The stored state cannot be used: not JSON, not of the state format, or of a newer format. The file is
 * left as it is (never replaced silently); the message says what is wrong and how to recover.
 */
export class StateCorruptError extends TgwError {
  readonly location: string;

  /** `problem` says what is wrong, e.g. `is not valid JSON (line 3, column 5: ...)`. */
  constructor(location: string, problem: string, recovery?: string) {
    super("state_corrupt", `state ${location} ${problem}${recovery === undefined ? "" : `; ${recovery}`}`);
    this.location = location;
  }
}

/**
 * The state lock this run held was lost: the PostgreSQL lock's database session ended, or the file
 * lock was taken over as stale (the process was frozen longer than the lock's lease, or hung), so
 * another run may hold it now. Nothing more is written: a state write and an API write are refused
 * unless the lock is confirmed held (fencing).
 */
export class StateLockLostError extends TgwError {
  readonly location: string;

  /**
   * @param why completes `was lost while this run held it (...)`: what ended it, e.g. `its database
   * session ended: ...`.
   */
  constructor(location: string, why: string) {
    super(
      "state_lock_lost",
      `the state lock of ${location} was lost while this run held it (${why}), so another run may hold it: nothing more is written by this run; plan again`,
    );
    this.location = location;
  }
}

/**
 * The state could not be read or written for a reason of the system (permission denied, disk full,
 * read-only file system...). The message names the file and the system's reason; nothing was half-written.
 */
export class StateIoError extends TgwError {
  readonly location: string;

  /** `action` is `read`, `write`, `lock`...; `cause` the system error (its code and message are shown). */
  constructor(location: string, action: string, cause: unknown) {
    const e = cause as NodeJS.ErrnoException;
    const reason = e?.code ? `${e.code}: ${e.message}` : String((e as Error)?.message ?? cause);
    super("state_io", `cannot ${action} state ${location} (${reason})`, { cause });
    this.location = location;
  }
}
