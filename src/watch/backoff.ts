/**
 * How long `tgw watch` waits before trying again after a failed reconcile (API down, rate limited,
 * lock held by someone else...). Rules:
 * - exponential: `initialMs * 2^(failures-1)`, capped at `maxMs`;
 * - "equal jitter": the wait is uniform in [d/2, d], so hosts that failed together spread out, and the
 *   wait is never close to zero (no tight loop, whatever the random source says);
 * - a `Retry-After` the failure carries is a floor: the wait is never shorter than what the API asked.
 *
 * The API client already retries each call a few times (src/client/retry.ts); this backoff is the outer
 * one, between whole reconciles. Both compute their waits with one helper (src/client/backoff.ts).
 */
import { exponentialDelay } from "../client/backoff.js";

/** Backoff settings, in milliseconds. */
export interface BackoffOptions {
  /** Wait after the first failure (before jitter). */
  initialMs: number;
  /** Upper bound of the exponential wait (a longer `Retry-After` is still honoured). */
  maxMs: number;
}

/** Defaults: 1 s after the first failure, doubling up to 5 min. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 300_000 };

/**
 * The wait after `failures` consecutive failures (1 = the first), in ms.
 * @param retryAfterMs what the API asked for (`Retry-After`), if the failure said.
 * @param random uniform in [0, 1); injectable for tests.
 */
export function backoffDelay(
  failures: number,
  opts: BackoffOptions,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const wait = exponentialDelay(
    failures,
    { baseMs: opts.initialMs, maxMs: opts.maxMs, jitter: "equal" },
    random,
  );
  return Math.max(wait, retryAfterMs ?? 0);
}

/**
 * The `Retry-After` a failure carries, in ms, if any: a `retryAfterMs` number on the error or on its
 * `cause` (the API client may attach it to a 429 it gave up waiting for).
 */
export function retryAfterOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === "object" && depth < 3; depth++) {
    const value = (e as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Counts consecutive failures and turns them into waits. */
export class Backoff {
  #failures = 0;
  readonly #opts: BackoffOptions;
  readonly #random: () => number;

  constructor(opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random) {
    if (!(opts.initialMs > 0 && opts.maxMs >= opts.initialMs)) {
      throw new RangeError(`backoff needs 0 < initialMs <= maxMs, got ${opts.initialMs} and ${opts.maxMs}`);
    }
    this.#opts = opts;
    this.#random = random;
  }

  /** Consecutive failures since the last success. */
  get failures(): number {
    return this.#failures;
  }

  /** Records a failure and returns the wait before the next attempt, in ms (see the module rules). */
  fail(err?: unknown): number {
    this.#failures++;
    return backoffDelay(this.#failures, this.#opts, retryAfterOf(err), this.#random);
  }

  /**
   * Records a reconcile that failed after making progress (changes applied): not a failure for the
   * backoff. The count restarts from 0 and the wait is that of a first failure (a `Retry-After` still
   * counts), so a run that keeps converging is retried promptly.
   */
  progress(err?: unknown): number {
    this.#failures = 0;
    return backoffDelay(1, this.#opts, retryAfterOf(err), this.#random);
  }

  /** Records a success: the next failure starts again from `initialMs`. */
  succeed(): void {
    this.#failures = 0;
  }
}
