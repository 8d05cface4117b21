/**
 * Retry policy of the API client: which outcomes are retried, and how long to wait before the next attempt.
 *
 * Rules:
 * - GET, PUT, PATCH and DELETE are retried on 429, on 5xx (except 501 and 505, which do not change on a
 *   retry) and on connection failures (refused, reset, closed, timeouts).
 * - POST is retried on 429 only. A 429 means the request was rejected before it was processed, so
 *   sending it again cannot create a second resource. A POST that hit a 5xx, a reset or a timeout may
 *   have created the resource: it is never sent twice blindly.
 * - The wait is `Retry-After` when the response has one (delta-seconds or HTTP-date), otherwise
 *   exponential backoff with full jitter: uniform in [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))].
 */
import { exponentialDelay } from "./backoff.js";

/** Retry settings. All durations in milliseconds. */
export interface RetryOptions {
  /** Retries after the first attempt (0 disables retries). */
  retries: number;
  /** Backoff cap of the first retry; doubles on each retry. */
  baseDelayMs: number;
  /** Upper bound of a computed backoff (does not cap `Retry-After`). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
  maxRetryAfterMs: number;
}

/** Defaults: 4 retries, 250 ms base, 15 s cap, give up on a `Retry-After` above 120 s. */
export const DEFAULT_RETRY: RetryOptions = {
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 15_000,
  maxRetryAfterMs: 120_000,
};

/** Methods that may be sent again after a failure whose outcome is unknown. */
export function isIdempotent(method: string): boolean {
  return method === "GET" || method === "PUT" || method === "PATCH" || method === "DELETE";
}

/** Whether a response status is retried for this method (see the module rules). */
export function isRetryableStatus(method: string, status: number): boolean {
  if (status === 429) return true;
  return isIdempotent(method) && status >= 500 && status !== 501 && status !== 505;
}

/** What the client knows about a failed attempt that got no response. */
export interface Failure {
  /** Error code (`ECONNRESET`, `UND_ERR_SOCKET`...) or `timeout`. */
  reason: string;
  description: string;
  /** Transient: worth retrying for an idempotent method. */
  transient: boolean;
  /** The request may have reached the server (false only when no connection was established). */
  maybeSent: boolean;
}

const FAILURES: Record<string, Omit<Failure, "reason">> = {
  ECONNREFUSED: { description: "connection refused", transient: true, maybeSent: false },
  ECONNRESET: { description: "connection reset", transient: true, maybeSent: true },
  EPIPE: { description: "connection closed while sending", transient: true, maybeSent: true },
  ETIMEDOUT: { description: "connection timed out", transient: true, maybeSent: true },
  EAI_AGAIN: { description: "temporary DNS failure", transient: true, maybeSent: false },
  ENOTFOUND: { description: "host not found", transient: false, maybeSent: false },
  ENETUNREACH: { description: "network unreachable", transient: true, maybeSent: false },
  EHOSTUNREACH: { description: "host unreachable", transient: true, maybeSent: false },
  UND_ERR_SOCKET: { description: "connection closed by the other side", transient: true, maybeSent: true },
  UND_ERR_CONNECT_TIMEOUT: { description: "connect timeout", transient: true, maybeSent: false },
  UND_ERR_HEADERS_TIMEOUT: { description: "no response headers in time", transient: true, maybeSent: true },
  UND_ERR_BODY_TIMEOUT: { description: "response body stalled", transient: true, maybeSent: true },
};

/**
 * Classifies an error thrown by the HTTP layer. Unknown codes are not transient and count as
 * possibly sent (the safe assumption for a POST).
 */
export function classifyFailure(err: unknown): Failure {
  const code = errorCode(err);
  const known = code === undefined ? undefined : FAILURES[code];
  if (code !== undefined && known !== undefined) return { reason: code, ...known };
  const description = err instanceof Error ? err.message : String(err);
  return { reason: code ?? "unknown", description, transient: false, maybeSent: true };
}

/** A timeout of the client's own per-attempt deadline. */
export function timeoutFailure(timeoutMs: number): Failure {
  return {
    reason: "timeout",
    description: `no response within ${timeoutMs} ms`,
    transient: true,
    maybeSent: true,
  };
}

// Node wraps some failures (AggregateError of happy-eyeballs, undici causes): look one level down.
function errorCode(err: unknown): string | undefined {
  const own = codeOf(err);
  if (own !== undefined && own !== "UND_ERR_SOCKET") return own;
  if (err instanceof AggregateError) return codeOf(err.errors[0]) ?? own;
  if (err instanceof Error) {
    const inner = codeOf(err.cause);
    if (inner !== undefined && FAILURES[inner] !== undefined) return inner;
  }
  return own;
}

function codeOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}

/**
 * Full-jitter exponential backoff for retry number `attempt` (1 = first retry), in ms (./backoff.ts).
 * @param random uniform in [0, 1); injectable for tests.
 */
export function backoffDelay(
  attempt: number,
  opts: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  return exponentialDelay(
    attempt,
    { baseMs: opts.baseDelayMs, maxMs: opts.maxDelayMs, jitter: "full" },
    random,
  );
}

/**
 * Parses a `Retry-After` header into a wait in ms from `nowMs`.
 * Accepts delta-seconds (`"3"`) or an HTTP-date; a date in the past gives 0. Undefined when absent or invalid.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
