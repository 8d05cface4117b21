/**
 * Exponential backoff with jitter: the one computation behind every wait before a retry in tgw (the
 * API client's retries, ./retry.ts; the engine's create retries, src/engine/operations.ts; the pause
 * between failed reconciles of `tgw watch`, src/watch/backoff.ts). A library (`p-retry`,
 * `exponential-backoff`) would also own the retry loop, which none of these callers can hand over:
 * the client honours `Retry-After` and reports each attempt, the engine looks for an ownership marker
 * between attempts, and watch sleeps between whole reconciles.
 *
 * The ceiling of retry `attempt` (1 = the first) is `min(maxMs, baseMs * 2^(attempt-1))`. Jitter:
 * - `full`: uniform in [0, ceiling), floored (spreads clients most; may be close to 0);
 * - `equal`: uniform in [ceiling/2, ceiling], rounded (never close to 0: no tight loop).
 */

/** Backoff settings, in milliseconds. */
export interface ExponentialBackoff {
  /** Ceiling of the first retry; doubles on each retry. */
  baseMs: number;
  /** Upper bound of the ceiling. */
  maxMs: number;
  jitter: "full" | "equal";
}

/**
 * The wait before retry number `attempt` (1 = the first), in ms (see the module rules).
 * @param random uniform in [0, 1); injectable for tests.
 */
export function exponentialDelay(
  attempt: number,
  opts: ExponentialBackoff,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30); // 2^30 ms is already far above any cap
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** exponent);
  return opts.jitter === "full"
    ? Math.floor(random() * ceiling)
    : Math.round(ceiling / 2 + random() * (ceiling / 2));
}
