/**
 * Client-side rate limiter: at most `requests` requests in any sliding window of `windowMs` (a log of
 * slots, not a fixed window, so a burst at a window boundary cannot double the rate). Callers wait for
 * a slot in FIFO order instead of failing. Every attempt takes a slot, retries included, because the
 * server counts them too.
 *
 * A slot is held from the start of a request until `windowMs` after it ends (`release()`), not after it
 * starts: the server sees a request somewhere between those two instants, so this is what guarantees
 * that the server, whatever the latency, never sees more than `requests` in one window. The cost is a
 * rate of `requests` per (`windowMs` + latency), a few per cent at the production limit.
 *
 * Default (see `resolveRateLimit`): 120 requests per 60 s, the production limit, unless the base URL's host
 * is loopback (localhost, 127.0.0.0/8, ::1), where the limiter is off.
 */
import { isIPv4 } from "node:net";

/** A rate: at most `requests` requests per `windowMs` milliseconds. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** The production limit of the API: 120 requests per 60 s. */
export const PRODUCTION_RATE_LIMIT: RateLimit = { requests: 120, windowMs: 60_000 };

/** Frees a slot when its request has ended; the slot then expires `windowMs` later. Idempotent. */
export type Release = () => void;

interface Slot {
  /** When the request ended (ms, monotonic); Infinity while it is in flight. */
  end: number;
}

interface Waiter {
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** Sliding-window-log limiter. Create one per client; `seed` / `recentEnds` carry it between processes. */
export class RateLimiter {
  readonly #limit: RateLimit;
  readonly #now: () => number;
  /** Slots still counted: in flight, or ended less than `windowMs` ago. */
  #slots: Slot[] = [];
  readonly #waiters: Waiter[] = [];
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param limit `requests` >= 1 (integer), `windowMs` > 0.
   * @param now monotonic clock in ms; injectable for tests.
   * @throws RangeError on an invalid limit.
   */
  constructor(limit: RateLimit, now: () => number = () => performance.now()) {
    if (!Number.isInteger(limit.requests) || limit.requests < 1 || !(limit.windowMs > 0)) {
      throw new RangeError(`invalid rate limit ${limit.requests} per ${limit.windowMs} ms`);
    }
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Waits for a slot and takes it. Call the returned `release` when the request has ended (response
   * read or failed), or the slot stays taken.
   * @throws `signal.reason` if the signal aborts while waiting (no slot is taken).
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal?.reason);
          this.#pump();
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /**
   * Counts requests that ended at `endsEpochMs` (ms since the epoch), e.g. another process's, as if
   * this limiter had sent them (./budget.ts).
   */
  seed(endsEpochMs: readonly number[], nowEpochMs = Date.now()): void {
    const now = this.#now();
    for (const t of endsEpochMs) this.#slots.push({ end: now - (nowEpochMs - t) });
  }

  /** The end times (ms since the epoch) of the requests still counted; one in flight counts as ending now. */
  recentEnds(nowEpochMs = Date.now()): number[] {
    const now = this.#now();
    return this.#slots
      .filter((slot) => slot.end + this.#limit.windowMs > now)
      .map((slot) => Math.round(nowEpochMs - (now - Math.min(slot.end, now))));
  }

  /** Rejects every waiting caller with `reason` (used when the client closes). */
  dispose(reason: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const waiter of this.#waiters.splice(0)) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(reason);
    }
  }

  #pump(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#now();
    const { windowMs, requests } = this.#limit;
    this.#slots = this.#slots.filter((slot) => slot.end + windowMs > now);
    while (this.#waiters.length > 0 && this.#slots.length < requests) {
      const waiter = this.#waiters.shift() as Waiter;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.#take());
    }
    if (this.#waiters.length === 0 || this.#slots.length < requests) return;
    // The next slot frees when the earliest ended one expires; while all are in flight, a release pumps.
    const firstEnd = Math.min(...this.#slots.map((slot) => slot.end));
    if (firstEnd === Number.POSITIVE_INFINITY) return;
    // Timers may fire a little early against the clock: #pump re-checks and re-arms if so.
    this.#timer = setTimeout(() => this.#pump(), Math.max(1, Math.ceil(firstEnd + windowMs - now)));
  }

  #take(): Release {
    const slot: Slot = { end: Number.POSITIVE_INFINITY };
    this.#slots.push(slot);
    return () => {
      if (slot.end !== Number.POSITIVE_INFINITY) return;
      slot.end = this.#now();
      if (this.#waiters.length > 0) this.#pump();
    };
  }
}

/**
 * The limiter a client should use for `baseUrl`.
 * @param option a rate, `false` for none, or undefined for the default (production limit unless loopback).
 * @returns undefined when requests are not limited.
 */
export function resolveRateLimit(baseUrl: URL, option: RateLimit | false | undefined): RateLimit | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return option;
  return isLoopbackHost(baseUrl.hostname) ? undefined : PRODUCTION_RATE_LIMIT;
}

/** True for `localhost`, 127.0.0.0/8 and ::1 (`URL.hostname` keeps IPv6 brackets; both forms accepted). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  return isIPv4(host) && host.startsWith("127.");
}
