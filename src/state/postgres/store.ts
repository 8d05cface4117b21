/**
 * The PostgreSQL state store, for teams: one database shared by every runner and `tgw watch` replica
 * of a stack (docs/state.md). Selected by a `postgres://` URL (./url.ts).
 *
 * - Tables are created on first use by versioned migrations (./migrations.ts), one row set per stack.
 * - The state is stored as the text of the state file format (../format.ts), validated the same way.
 * - Writes are compare-and-swap on lineage and serial in one transaction: a write from an older serial
 *   or another lineage is refused (StateConflictError), never merged.
 * - Each write is also kept in `state_history` with the plan that produced it; the last N (`?history=`,
 *   default 20) are kept per stack.
 * - `lock()` is a session-level advisory lock keyed by the stack, on a connection of its own
 *   (./lock.ts): released by PostgreSQL when the holder's connection dies.
 */
import pg from "pg";
import { StateConflictError, StateCorruptError, StateIoError, StateLockLostError } from "../errors.js";
import { parseState, serializeState, snapshotProblems } from "../format.js";
import { emptySnapshot } from "../snapshot.js";
import type {
  HistoryEntry,
  PlannedChange,
  StateFencing,
  StateHistory,
  StateImport,
  StateSnapshot,
  StateStore,
  Unlock,
  WriteContext,
} from "../store.js";
import { advisoryKey, pgLocksIds } from "./keys.js";
import { acquireAdvisoryLock, type HeldLock } from "./lock.js";
import { migrate, quoteIdent } from "./migrations.js";
import { type PostgresTarget, parsePostgresUrl } from "./url.js";

/** Options of a `PostgresStateStore`. */
export interface PostgresStateStoreOptions {
  /** The stack whose rows this store reads and writes (required: rows are keyed by stack). */
  stack: string;
  /** The command writing, recorded in the history when a write gives none (default `tgw`). */
  command?: string;
  /**
   * Lease of the state lock in ms (default `DEFAULT_LOCK_LEASE_MS`): the holder checks in every third
   * of it, and the server ends the session of a holder silent for a whole lease (frozen, cut off),
   * which releases the lock.
   */
  lockLeaseMs?: number;
}

/** Default lease of the state lock (ms), as the watch leadership's. */
export const DEFAULT_LOCK_LEASE_MS = 15_000;

/** A state kept in PostgreSQL. */
export class PostgresStateStore implements StateStore, StateFencing, StateHistory, StateImport {
  /** `postgres://tgw@db:5432/tgw (stack web)`: never the password. */
  readonly location: string;
  readonly stack: string;
  readonly target: PostgresTarget;
  readonly #pool: pg.Pool;
  readonly #s: string;
  readonly #command: string;
  #ready: Promise<void> | undefined;
  #closed = false;
  readonly #leaseMs: number;
  /** The state lock `lock()` holds: every write first checks that its session still holds it. */
  #stateLock: HeldLock | undefined;
  #emptyLineage: string | undefined;

  /** @param url a `postgres://` URL (./url.ts) or its parsed form. */
  constructor(url: string | PostgresTarget, opts: PostgresStateStoreOptions) {
    this.target = typeof url === "string" ? parsePostgresUrl(url) : url;
    this.stack = opts.stack;
    this.location = `${this.target.display} (stack ${opts.stack})`;
    this.#s = quoteIdent(this.target.schema);
    this.#command = opts.command ?? "tgw";
    this.#leaseMs = opts.lockLeaseMs ?? DEFAULT_LOCK_LEASE_MS;
    this.#pool = sharedPool(this.target.connectionString, this.#leaseMs);
  }

  /**
   * The stored snapshot, or an empty one (the same lineage on every read until something is stored).
   * @throws StateCorruptError if the stored text is not a state; StateIoError if the database fails.
   */
  async read(): Promise<StateSnapshot> {
    const rows = await this.#query<{ document: string }>(
      "read",
      `SELECT document FROM ${this.#s}.states WHERE stack = $1`,
      [this.stack],
    );
    const row = rows[0];
    if (row !== undefined) {
      this.#emptyLineage = undefined;
      return this.#parse(row.document, `the state of stack ${this.stack}`);
    }
    const empty = emptySnapshot(this.stack);
    this.#emptyLineage ??= empty.lineage;
    return { ...empty, lineage: this.#emptyLineage };
  }

  /**
   * Writes `snapshot` with `serial + 1` if the stored lineage and serial are the snapshot's, and keeps
   * it in the history with `context`.
   * @throws StateConflictError if they are not; StateIoError if the database fails; Error (a bug of
   * the caller) if `snapshot` is not a valid state of this stack.
   */
  async write(snapshot: StateSnapshot, context: WriteContext = {}): Promise<StateSnapshot> {
    const { next, text } = this.#prepare({ ...snapshot, serial: snapshot.serial + 1 });
    await this.#transaction("write", async (client) => {
      await this.#checkStateLock(client);
      const changed =
        snapshot.serial === 0
          ? await client.query(
              `INSERT INTO ${this.#s}.states (stack, lineage, serial, document, revision)
               VALUES ($1, $2, $3, $4, $5) ON CONFLICT (stack) DO NOTHING`,
              [this.stack, next.lineage, next.serial, text, context.revision ?? null],
            )
          : await client.query(
              `UPDATE ${this.#s}.states SET serial = $3, document = $4, revision = $5, updated_at = now()
                WHERE stack = $1 AND lineage = $2 AND serial = $6`,
              [this.stack, next.lineage, next.serial, text, context.revision ?? null, snapshot.serial],
            );
      if (changed.rowCount !== 1) throw await this.#conflict(client, snapshot);
      await this.#keepHistory(client, next, text, context);
    });
    this.#emptyLineage = undefined;
    return next;
  }

  /**
   * Takes the state lock of this stack (see `StateStore.lock`).
   * @throws LockTimeoutError naming the holder; StateIoError if the database cannot be reached.
   */
  async lock(opts: { timeoutMs: number; holder: string; signal?: AbortSignal }): Promise<Unlock> {
    const leaseMs = this.#leaseMs;
    const held = await this.acquire("state", { ...opts, leaseMs });
    // Checking in keeps the session busy: only a holder that stops (frozen, cut off) loses it.
    const heartbeat = setInterval(() => void held.check(leaseMs / 3), leaseMs / 3);
    heartbeat.unref();
    this.#stateLock = held;
    return async () => {
      clearInterval(heartbeat);
      if (this.#stateLock === held) this.#stateLock = undefined;
      await held.release();
    };
  }

  /** See `StateFencing.assertLockHeld`: half the lease without a confirmation means asking again. */
  async assertLockHeld(): Promise<void> {
    if (this.lockStillConfirmed()) return;
    if (!(await (this.#stateLock as HeldLock).check(this.#leaseMs / 3))) throw this.#lockLost();
  }

  /** See `StateFencing.lockStillConfirmed`: confirmed within half the lease. */
  lockStillConfirmed(): boolean {
    const held = this.#stateLock;
    return held === undefined || performance.now() - held.confirmedAt < this.#leaseMs / 2;
  }

  /** The error of a lost state lock: what ended its session. */
  #lockLost(): StateLockLostError {
    return new StateLockLostError(
      this.location,
      `its database session ended: the process was frozen for longer than the lock's lease of ${Math.round(this.#leaseMs / 1000)} s, or the session was terminated`,
    );
  }

  /**
   * Fencing: while this store holds the state lock, a write goes through only if the lock's session
   * still holds it (`pg_locks`), checked in the write's own transaction.
   * @throws StateLockLostError when it does not.
   */
  async #checkStateLock(client: pg.PoolClient): Promise<void> {
    const held = this.#stateLock;
    if (held === undefined) return;
    const backendPid = Number(held.description.lockId?.replace(/^pg-/, ""));
    const { classid, objid } = pgLocksIds(advisoryKey("state", this.target.schema, this.stack));
    const r = await client.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND pid = $3 AND classid = $1::oid AND objid = $2::oid AND objsubid = 1) AS held`,
      [classid, objid, backendPid],
    );
    if (r.rows[0]?.held !== true) throw this.#lockLost();
  }

  /**
   * Takes one of this stack's advisory locks: `state` (what `lock()` takes) or `leader` (the
   * leadership of `tgw watch` replicas, src/watch/leader.ts).
   * @throws LockTimeoutError naming the holder; StateIoError if the database cannot be reached.
   */
  async acquire(
    purpose: "state" | "leader",
    opts: { timeoutMs: number; holder: string; signal?: AbortSignal; leaseMs?: number },
  ): Promise<HeldLock> {
    await this.#ensureReady();
    try {
      return await acquireAdvisoryLock(
        {
          connect: () => this.#connect(),
          schema: this.target.schema,
          stack: this.stack,
          purpose,
          location: this.location,
        },
        opts,
      );
    } catch (err) {
      if (
        err instanceof Error &&
        "code" in err &&
        typeof err.code === "string" &&
        err.code.startsWith("state_")
      )
        throw err;
      if (opts.signal?.aborted && err === opts.signal.reason) throw err;
      throw new StateIoError(this.location, "lock", err);
    }
  }

  /** The kept states of this stack, newest first. */
  async history(limit = this.target.history): Promise<HistoryEntry[]> {
    const rows = await this.#query<{
      serial: number;
      lineage: string;
      written_at: Date;
      written_by: string;
      revision: string | null;
      plan: PlannedChange[] | null;
      resources: string;
    }>(
      "read",
      `SELECT serial, lineage, written_at, written_by, revision, plan,
              (SELECT count(*) FROM jsonb_object_keys(document::jsonb -> 'resources')) AS resources
         FROM ${this.#s}.state_history WHERE stack = $1 ORDER BY id DESC LIMIT $2`,
      [this.stack, limit],
    );
    return rows.map((r) => ({
      serial: r.serial,
      lineage: r.lineage,
      writtenAt: r.written_at.toISOString(),
      writtenBy: r.written_by,
      ...(r.revision === null ? {} : { revision: r.revision }),
      ...(r.plan === null ? {} : { plan: r.plan }),
      resources: Number(r.resources),
    }));
  }

  /** The snapshot kept for `serial` (the current lineage's first), or undefined. */
  async snapshotAt(serial: number): Promise<StateSnapshot | undefined> {
    const rows = await this.#query<{ document: string }>(
      "read",
      `SELECT h.document FROM ${this.#s}.state_history h
         LEFT JOIN ${this.#s}.states s ON s.stack = h.stack AND s.lineage = h.lineage
        WHERE h.stack = $1 AND h.serial = $2
        ORDER BY (s.stack IS NOT NULL) DESC, h.id DESC LIMIT 1`,
      [this.stack, serial],
    );
    const row = rows[0];
    return row === undefined ? undefined : this.#parse(row.document, `the history of serial ${serial}`);
  }

  /** See `StateImport.importSnapshot`. */
  async importSnapshot(snapshot: StateSnapshot): Promise<void> {
    const { next, text } = this.#prepare(snapshot);
    await this.#transaction("write", async (client) => {
      const inserted = await client.query(
        `INSERT INTO ${this.#s}.states (stack, lineage, serial, document)
         VALUES ($1, $2, $3, $4) ON CONFLICT (stack) DO NOTHING`,
        [this.stack, next.lineage, next.serial, text],
      );
      if (inserted.rowCount === 1) {
        await this.#keepHistory(client, next, text, { command: "tgw state migrate" });
        return;
      }
      const r = await client.query<{ document: string }>(
        `SELECT document FROM ${this.#s}.states WHERE stack = $1`,
        [this.stack],
      );
      if (r.rows[0]?.document === text) return;
      const stored = r.rows[0] ? this.#parse(r.rows[0].document, "the stored state") : undefined;
      throw new StateConflictError(
        this.location,
        `already holds a state (lineage ${stored?.lineage}, serial ${stored?.serial}): a state is migrated only into an empty one`,
      );
    });
  }

  /** Closes the connections of this store (locks taken from it are released by their own `Unlock`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await releasePool(this.target.connectionString);
  }

  #prepare(snapshot: StateSnapshot): { next: StateSnapshot; text: string } {
    const text = serializeState(snapshot);
    const problems = snapshotProblems(snapshot, text);
    if (snapshot.stack !== this.stack) {
      problems.push(`stack: is "${snapshot.stack}", this store's stack is "${this.stack}"`);
    }
    if (problems.length > 0) {
      throw new Error(`refusing to write an invalid state to ${this.location}: ${problems.join("; ")}`);
    }
    // A copy in file order, sharing nothing with the caller's snapshot.
    return { next: JSON.parse(text) as StateSnapshot, text };
  }

  async #keepHistory(
    client: pg.PoolClient,
    next: StateSnapshot,
    text: string,
    context: WriteContext,
  ): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#s}.state_history (stack, lineage, serial, document, plan, revision, written_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        this.stack,
        next.lineage,
        next.serial,
        text,
        context.plan === undefined ? null : JSON.stringify(context.plan),
        context.revision ?? null,
        context.command ?? this.#command,
      ],
    );
    await client.query(
      `DELETE FROM ${this.#s}.state_history WHERE stack = $1 AND id NOT IN (
         SELECT id FROM ${this.#s}.state_history WHERE stack = $1 ORDER BY id DESC LIMIT $2)`,
      [this.stack, this.target.history],
    );
  }

  /** The conflict that made a compare-and-swap write change nothing. */
  async #conflict(client: pg.PoolClient, snapshot: StateSnapshot): Promise<StateConflictError> {
    const r = await client.query<{ lineage: string; serial: number }>(
      `SELECT lineage, serial FROM ${this.#s}.states WHERE stack = $1`,
      [this.stack],
    );
    const stored = r.rows[0];
    if (stored === undefined) {
      return new StateConflictError(
        this.location,
        `was deleted since it was read (at serial ${snapshot.serial}); run the command again`,
      );
    }
    if (stored.lineage !== snapshot.lineage) {
      return new StateConflictError(
        this.location,
        `has lineage ${stored.lineage}, not ${snapshot.lineage}: it was created or replaced since it was read; run the command again`,
      );
    }
    return new StateConflictError(
      this.location,
      `changed since it was read (read at serial ${snapshot.serial}, now serial ${stored.serial}): another tgw wrote it; run the command again`,
    );
  }

  #parse(text: string, what: string): StateSnapshot {
    const parsed = parseState(text);
    if ("problem" in parsed) {
      throw new StateCorruptError(
        this.location,
        `(${what}) ${parsed.problem}`,
        "restore an earlier state with `tgw state history` and `tgw state restore SERIAL`",
      );
    }
    return parsed.snapshot;
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.target.connectionString,
      keepAlive: true,
      application_name: "tgw (lock)",
    });
    client.on("error", () => {});
    await client.connect();
    return client;
  }

  #ensureReady(): Promise<void> {
    const key = `${this.target.connectionString}\0${this.target.schema}`;
    if (migrated.has(key)) return Promise.resolve();
    this.#ready ??= (async () => {
      const client = await this.#pool.connect().catch((err: unknown) => {
        throw new StateIoError(this.location, "connect to", err);
      });
      try {
        await migrate(client, this.target.schema);
      } catch (err) {
        throw new StateIoError(this.location, "prepare the tables of", err);
      } finally {
        client.release();
      }
      migrated.add(key);
    })();
    // A failure is not remembered: the next call tries again (the database may come back).
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }

  async #query<R extends pg.QueryResultRow>(action: string, sql: string, params: unknown[]): Promise<R[]> {
    await this.#ensureReady();
    try {
      return (await this.#pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw new StateIoError(this.location, action, err);
    }
  }

  async #transaction(action: string, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    await this.#ensureReady();
    const client = await this.#pool.connect().catch((err: unknown) => {
      throw new StateIoError(this.location, action, err);
    });
    // The server may end the session mid-transaction (a holder frozen longer than the lease): the
    // pending query rejects, and the error the connection also emits must not crash the process.
    const ignore = () => {};
    client.on("error", ignore);
    try {
      await client.query("BEGIN");
      await body(client);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      if (err instanceof StateConflictError || err instanceof StateLockLostError) throw err;
      throw new StateIoError(this.location, action, err);
    } finally {
      client.off("error", ignore);
      client.release();
    }
  }
}

/** Schemas found up to date by this process (`connection string \0 schema`). */
const migrated = new Set<string>();

/**
 * One connection per database per process for reads and writes, shared by its stores (a `tgw watch`
 * opens one store per stack; locks have connections of their own). Requests are served strictly in
 * arrival order, so a read asked for before a write sees the state before it; the connection is
 * closed when idle and never keeps a finished command running. The first store of a process sets the
 * lease (ms) after which the server ends a transaction left idle.
 */
const pools = new Map<string, { pool: pg.Pool; users: number }>();

function sharedPool(connectionString: string, leaseMs: number): pg.Pool {
  let entry = pools.get(connectionString);
  if (entry === undefined) {
    const pool = new pg.Pool({
      connectionString,
      max: 1,
      idleTimeoutMillis: 5_000,
      allowExitOnIdle: true,
      application_name: "tgw",
      // A holder frozen inside a write transaction would keep its row lock, and so every other
      // writer waiting, for the whole freeze: the server ends such a session after one lease.
      idle_in_transaction_session_timeout: leaseMs,
    });
    // An idle connection that dies (server restart) is dropped by the pool; the next query reconnects.
    pool.on("error", () => {});
    entry = { pool, users: 0 };
    pools.set(connectionString, entry);
  }
  entry.users++;
  return entry.pool;
}

async function releasePool(connectionString: string): Promise<void> {
  const entry = pools.get(connectionString);
  if (entry === undefined || --entry.users > 0) return;
  pools.delete(connectionString);
  await entry.pool.end();
}
