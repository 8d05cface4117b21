/**
 * Session-level PostgreSQL advisory locks, each on a connection of its own that lives exactly as long
 * as the lock: PostgreSQL releases the lock when that connection ends, so a holder that is killed
 * (SIGKILL, a crash, a lost network) never leaves a stale lock behind.
 *
 * The holder describes itself in `<schema>.lock_holders` (command, pid, host, time, and its server
 * process id), so that a waiter can name it. A description counts only while `pg_locks` shows that
 * very server process holding that very lock: a description left by a killed holder is ignored.
 */

import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "pg";
import { type LockHolder, LockTimeoutError } from "../errors.js";
import { advisoryKey, type LockPurpose, pgLocksIds } from "./keys.js";
import { quoteIdent } from "./migrations.js";

/** Polling period of a waiting taker (ms): a released lock is seen within this time. */
const POLL_MS = 100;
/** How long a taker that gives up waits for a fresh holder's description (it writes it just after locking). */
const DESCRIPTION_GRACE_MS = 500;

/** Which lock, and where. */
export interface AdvisoryLockTarget {
  /** Opens a new dedicated connection (closed by the lock). */
  connect: () => Promise<Client>;
  schema: string;
  stack: string;
  purpose: LockPurpose;
  /** The state location, for messages. */
  location: string;
}

/** A lock this process holds. */
export interface HeldLock {
  /** Releases the lock and closes its connection; safe to call twice. */
  release(): Promise<void>;
  /**
   * Checks that the lock is still held (its connection alive, `pg_locks` showing it).
   * @returns false when it was lost (the connection died or was terminated).
   */
  check(timeoutMs: number): Promise<boolean>;
  /** True once the lock's connection reported an error or ended. */
  readonly lost: boolean;
  /** When the lock was last known held (`performance.now()` ms): taken, or a `check` that found it. */
  readonly confirmedAt: number;
  /** What waiters see. */
  readonly description: LockHolder;
}

/**
 * Takes the advisory lock of `target`, waiting up to `timeoutMs` (0: one try).
 * @throws LockTimeoutError naming the holder when the wait runs out; `signal.reason` when aborted; the
 * driver's error when the database cannot be reached.
 */
export async function acquireAdvisoryLock(
  target: AdvisoryLockTarget,
  opts: AcquireOptions,
): Promise<HeldLock> {
  const key = advisoryKey(target.purpose, target.schema, target.stack);
  const started = Date.now();
  opts.signal?.throwIfAborted();
  const client = await target.connect();
  const connection = { lost: false };
  client.on("error", () => {
    connection.lost = true;
  });
  client.on("end", () => {
    connection.lost = true;
  });
  try {
    await waitForLock(client, target, key, opts, started);
    const description = await writeDescription(client, target, key, opts.holder);
    if (opts.leaseMs !== undefined) {
      // A lease the server enforces: a holder that stops checking in (hung, cut off) loses its
      // connection, hence the lock, after this long (PostgreSQL 14+; older servers ignore it).
      await client
        .query("SELECT set_config('idle_session_timeout', $1, false)", [`${Math.round(opts.leaseMs)}ms`])
        .catch(() => {});
    }
    return heldLock(client, target, key, description, connection);
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
}

/** Options of `acquireAdvisoryLock`. */
interface AcquireOptions {
  timeoutMs: number;
  holder: string;
  signal?: AbortSignal;
  leaseMs?: number;
}

/**
 * Tries the lock on `client` every POLL_MS until taken, or until `timeoutMs` after `started`.
 * @throws LockTimeoutError naming the holder; `signal.reason` when aborted; the driver's errors.
 */
async function waitForLock(
  client: Client,
  target: AdvisoryLockTarget,
  key: string,
  opts: AcquireOptions,
  started: number,
): Promise<void> {
  for (;;) {
    const r = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [key]);
    if (r.rows[0]?.ok) return;
    const left = opts.timeoutMs - (Date.now() - started);
    if (left <= 0) {
      const holder = await describeHolder(client, target, key);
      throw new LockTimeoutError(target.location, holder, opts.timeoutMs);
    }
    // As the file lock: an aborted wait rejects with the caller's reason, not timers' AbortError.
    await sleep(Math.min(POLL_MS, left), undefined, opts.signal ? { signal: opts.signal } : {}).catch(
      (err: unknown) => {
        throw opts.signal?.aborted ? opts.signal.reason : err;
      },
    );
  }
}

/**
 * The `HeldLock` of the lock taken on `client`; `connection.lost` is set by the connection's events
 * and by a `check` that does not find the lock.
 */
function heldLock(
  client: Client,
  target: AdvisoryLockTarget,
  key: string,
  description: LockHolder,
  connection: { lost: boolean },
): HeldLock {
  let released: Promise<void> | undefined;
  let confirmedAt = performance.now();
  return {
    description,
    get lost() {
      return connection.lost;
    },
    get confirmedAt() {
      return confirmedAt;
    },
    release: () => {
      released ??= (async () => {
        if (!connection.lost) {
          await client
            .query(
              `DELETE FROM ${quoteIdent(target.schema)}.lock_holders WHERE lock_key = $1 AND backend_pid = pg_backend_pid()`,
              [key],
            )
            .catch(() => {});
          await client.query("SELECT pg_advisory_unlock($1)", [key]).catch(() => {});
        }
        await client.end().catch(() => {});
      })();
      return released;
    },
    check: async (timeoutMs) => {
      if (connection.lost) return false;
      const { classid, objid } = pgLocksIds(key);
      const query = client.query<{ held: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
           AND pid = pg_backend_pid() AND classid = $1::oid AND objid = $2::oid AND objsubid = 1) AS held`,
        [classid, objid],
      );
      const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      const held = await Promise.race([query.then((r) => r.rows[0]?.held === true), timeout]).catch(
        () => false,
      );
      if (held) confirmedAt = performance.now();
      else connection.lost = true;
      return held;
    },
  };
}

async function writeDescription(
  client: Client,
  target: AdvisoryLockTarget,
  key: string,
  holder: string,
): Promise<LockHolder> {
  const since = new Date().toISOString();
  const r = await client.query<{ backend_pid: number }>(
    `INSERT INTO ${quoteIdent(target.schema)}.lock_holders
       (lock_key, stack, purpose, holder, pid, hostname, since, backend_pid)
     VALUES ($1, $2, $3, $4, $5, $6, $7, pg_backend_pid())
     ON CONFLICT (lock_key) DO UPDATE SET stack = EXCLUDED.stack, purpose = EXCLUDED.purpose,
       holder = EXCLUDED.holder, pid = EXCLUDED.pid, hostname = EXCLUDED.hostname,
       since = EXCLUDED.since, backend_pid = EXCLUDED.backend_pid
     RETURNING backend_pid`,
    [key, target.stack, target.purpose, holder, process.pid, hostname(), since],
  );
  return { holder, pid: process.pid, hostname: hostname(), since, lockId: `pg-${r.rows[0]?.backend_pid}` };
}

/**
 * The description of whoever holds the lock `key` now, waiting briefly for a holder that has just
 * taken it to write it; undefined if none appears.
 */
export async function describeHolder(
  client: Client,
  target: Pick<AdvisoryLockTarget, "schema">,
  key: string,
): Promise<LockHolder | undefined> {
  const until = Date.now() + DESCRIPTION_GRACE_MS;
  const { classid, objid } = pgLocksIds(key);
  for (;;) {
    const r = await client.query<{
      holder: string;
      pid: number;
      hostname: string;
      since: Date;
      backend_pid: number;
    }>(
      `SELECT h.holder, h.pid, h.hostname, h.since, h.backend_pid
         FROM ${quoteIdent(target.schema)}.lock_holders h
        WHERE h.lock_key = $1 AND EXISTS (
          SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid
             AND l.classid = $2::oid AND l.objid = $3::oid AND l.objsubid = 1)`,
      [key, classid, objid],
    );
    const row = r.rows[0];
    if (row !== undefined) {
      return {
        holder: row.holder,
        pid: row.pid,
        hostname: row.hostname,
        since: row.since.toISOString(),
        lockId: `pg-${row.backend_pid}`,
      };
    }
    if (Date.now() >= until) return undefined;
    await sleep(50);
  }
}
