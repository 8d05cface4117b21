/**
 * Leader election of `tgw watch` replicas sharing a PostgreSQL state (docs/watch.md): the leader is
 * whoever holds the stack's `leader` advisory lock (src/state/postgres/lock.ts). Only the leader
 * reconciles; the others stand by and try to take the lock every third of the lease.
 *
 * The lease (default 15 s): the leader checks every third of it that it still holds the lock, and
 * steps down (its reconcile is stopped) when it cannot confirm within a third of it. The server ends
 * the session of a leader silent for a whole lease (`idle_session_timeout`), which releases the lock.
 * A leader killed with SIGKILL loses its connection, hence the lock, at once: a standby takes over
 * within a third of the lease. Nothing is applied twice: the state's compare-and-swap writes and the
 * ownership markers make the new leader's first reconcile pick up where the old one stopped.
 */
import { describeHolder, LockTimeoutError } from "../state/errors.js";
import type { HeldLock } from "../state/postgres/lock.js";
import type { EventSink } from "./events.js";

/** Default lease (ms). */
export const DEFAULT_LEASE_MS = 15_000;

/** The lock the leadership is built on (PostgresStateStore.acquire). */
export interface LeaderLockSource {
  readonly location: string;
  acquire(
    purpose: "leader",
    opts: { timeoutMs: number; holder: string; signal?: AbortSignal; leaseMs?: number },
  ): Promise<HeldLock>;
}

/** What a replica knows about the leadership, for `/healthz`. */
export interface LeadershipStatus {
  role: "leader" | "standby";
  /** The leader as its lock describes it (this replica, when leading); null if unknown. */
  leader: { holder: string; pid: number; hostname: string; since: string } | null;
  leaseMs: number;
}

/** Options of a `Leadership`. */
export interface LeadershipOptions {
  source: LeaderLockSource;
  /** Lease in ms (at least 3000 is sensible; tests use less). */
  leaseMs: number;
  /** Described to the other replicas (`tgw watch`). */
  holder: string;
  /** Called when this replica becomes the leader. */
  onElected: () => void;
  /** Called when it stops being the leader (lock lost); awaited before trying again. */
  onDeposed: (reason: string) => Promise<void>;
  emit: EventSink;
}

/** The election loop of one replica. */
export class Leadership {
  readonly #opts: LeadershipOptions;
  #held: HeldLock | undefined;
  #status: LeadershipStatus;
  #lastLeader: string | undefined;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(opts: LeadershipOptions) {
    this.#opts = opts;
    this.#status = { role: "standby", leader: null, leaseMs: opts.leaseMs };
  }

  /** The role and the leader now. */
  status(): LeadershipStatus {
    return this.#status;
  }

  /** Starts campaigning (returns at once). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops campaigning and releases the leadership if held (after the caller stopped reconciling). */
  async stop(): Promise<void> {
    this.#stop.abort(new Error("stopping"));
    await this.#loop;
    await this.#held?.release();
    this.#held = undefined;
  }

  async #run(): Promise<void> {
    const period = Math.max(50, Math.floor(this.#opts.leaseMs / 3));
    while (!this.#stop.signal.aborted) {
      try {
        if (this.#held === undefined) await this.#campaign();
        else if (!(await this.#held.check(period))) await this.#stepDown("the leader lock was lost");
      } catch (err) {
        if (this.#stop.signal.aborted) break;
        this.#opts.emit({
          type: "warning",
          message: `leader election: cannot reach the state store (${(err as Error).message})`,
        });
        if (this.#held !== undefined) await this.#stepDown("the state store cannot be reached");
      }
      await sleep(period, this.#stop.signal);
    }
  }

  async #campaign(): Promise<void> {
    try {
      const held = await this.#opts.source.acquire("leader", {
        timeoutMs: 0,
        holder: this.#opts.holder,
        signal: this.#stop.signal,
        leaseMs: this.#opts.leaseMs,
      });
      if (this.#stop.signal.aborted) {
        await held.release();
        return;
      }
      this.#held = held;
      const { holder, pid, hostname, since } = held.description;
      this.#status = { ...this.#status, role: "leader", leader: { holder, pid, hostname, since } };
      this.#lastLeader = undefined;
      this.#opts.emit({ type: "leadership", role: "leader" });
      this.#opts.onElected();
    } catch (err) {
      if (!(err instanceof LockTimeoutError)) throw err;
      const h = err.lockHolder;
      this.#status = {
        ...this.#status,
        role: "standby",
        leader:
          h === undefined ? null : { holder: h.holder, pid: h.pid, hostname: h.hostname, since: h.since },
      };
      const who = h === undefined ? undefined : describeHolder(h);
      if (who !== this.#lastLeader) {
        this.#lastLeader = who;
        this.#opts.emit({
          type: "leadership",
          role: "standby",
          ...(who === undefined ? {} : { leader: who }),
        });
      }
    }
  }

  async #stepDown(reason: string): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    this.#status = { ...this.#status, role: "standby", leader: null };
    this.#lastLeader = undefined;
    this.#opts.emit({ type: "leadership", role: "standby", reason });
    await this.#opts.onDeposed(reason);
    await held?.release();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
