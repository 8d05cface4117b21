/**
 * The API client: the only way the rest of tgw talks to the Tunnel Gateway Management API.
 *
 * Every request carries `Authorization: Bearer <apiKey>` and `Service-Version: 2`, plus
 * `Content-Type: application/json` when it has a body. Bodies are JSON both ways; a 204 (or any empty
 * success body) gives `undefined`. Each attempt waits for a rate-limit slot (./rate-limit.ts), then is
 * retried by the policy of ./retry.ts; failures surface as `ApiError` or `NetworkError` (./errors.ts).
 * Connections are kept alive in an undici Agent owned by the client: call `close()` when done.
 *
 * Aborting the `signal` of a call rejects it with `signal.reason`, whether it is in flight, in a backoff
 * or waiting for a rate-limit slot. An aborted POST that was already sent may have created its resource.
 *
 * Once no connection could be made (refused, unknown host...), the API is taken to be unreachable: the
 * next call goes out alone to find out whether it is back, and calls arriving meanwhile wait for its
 * answer; if it is still unreachable they fail at once without being sent (./outage.ts). With
 * `probeOutages` (`tgw watch`), any sign of an outage counts (no answer, 502, 503, 504), and an attempt
 * that found the API still down is not retried: an outage costs one request per attempt of the caller,
 * not one per call and retry.
 *
 * @example
 * const api = new ApiClient({ baseUrl: "https://api.example.com", apiKey: process.env.TGW_API_KEY ?? "" });
 * const key = await api.post<{ id: string }>("/api_keys", { description: "ci" });
 * for await (const k of api.list<{ id: string }>("/api_keys", "keys")) console.log(k.id);
 * await api.close();
 */

import { TgwError, UsageError } from "../errors.js";
import { Agent } from "./agent.js";
import { budgetFile, loadBudget, saveBudget } from "./budget.js";
import { ApiError, apiErrorFromResponse, NetworkError } from "./errors.js";
import { type Answer, ExchangeFailure, exchange, HeldBack, headerOf } from "./exchange.js";
import { OutageGate } from "./outage.js";
import { type RateLimit, RateLimiter, resolveRateLimit } from "./rate-limit.js";
import {
  backoffDelay,
  classifyFailure,
  DEFAULT_RETRY,
  type Failure,
  isIdempotent,
  isRetryableStatus,
  parseRetryAfter,
  type RetryOptions,
  timeoutFailure,
} from "./retry.js";
import { sleep } from "./sleep.js";
import { type HttpMethod, type WaitingEvent, WaitWatch } from "./waits.js";

export type { HttpMethod, WaitingEvent } from "./waits.js";

/** Query parameters; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Options of one call. */
export interface RequestOptions {
  /** JSON-serialisable request body; sent with `Content-Type: application/json`. */
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
  /** A call the caller may still have to stop until it is sent (see `Fence`). */
  fence?: Fence;
}

/**
 * What may stop a call until it is sent: the state lock's fencing (src/engine/fencing.ts). Before each
 * attempt, once its rate-limit slot is taken and its retry delay is over, `check()` is awaited: when it
 * rejects, the call fails with that error, unsent. Right before the attempt is handed to its socket,
 * `stillValid()` is asked, without I/O: when it says no (the process stalled since the check, frozen
 * perhaps), the attempt is held back, unsent, and `check()` awaited again.
 */
export interface Fence {
  check(): Promise<void>;
  stillValid(): boolean;
}

/** Options of a list. */
export interface ListOptions {
  /** Page size, an integer in 1..100 (server default 100). */
  limit?: number;
  /** Extra query parameters of the first page (later pages use `next_page_uri` as given). */
  query?: Query;
  signal?: AbortSignal;
}

/** One attempt, as reported to `onResponse`. Never carries bodies or headers (they hold secrets). */
export interface ResponseEvent {
  method: HttpMethod;
  /** Path relative to the base URL, without the query string. */
  path: string;
  /** HTTP status; undefined when no response arrived (see `failure`). */
  status: number | undefined;
  /** 1 for the first attempt, 2 for the first retry... */
  attempt: number;
  /** Time from sending to the end of the response body, in ms (rate-limit waits excluded). */
  durationMs: number;
  /** Reason of a failed attempt without response, e.g. `ECONNRESET` or `timeout`. */
  failure?: string;
  /** Set when the client will retry: the wait before the next attempt, in ms. */
  retryInMs?: number;
  /** Set when the client's rate limiter held this attempt back: how long, in ms. */
  rateLimitWaitMs?: number;
}

/** First `onWaiting` report after this many ms of waiting, then one every `WAITING_EVERY_MS`. */
export const WAITING_AFTER_MS = 2_000;
const WAITING_EVERY_MS = 10_000;
/** A limiter wait shorter than this is the event loop, not the limiter: not reported. */
const RATE_LIMIT_WAIT_REPORTED_MS = 5;

/** Settings of an `ApiClient`. */
export interface ApiClientOptions {
  /** Base URL, e.g. `https://api.example.com` or `http://127.0.0.1:4000/v2`; paths are appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * Client-side limit of request starts. Default: 120 per 60 s, or none when the base URL's host is
   * loopback. `false` turns it off.
   */
  rateLimit?: RateLimit | false;
  /** Retry settings; unset fields take the values of `DEFAULT_RETRY`. */
  retry?: Partial<RetryOptions>;
  /** Deadline of one attempt (connect, send, response body), in ms. Default 30 000. */
  timeoutMs?: number;
  /** Called after every attempt. Exceptions it throws are ignored: observing must not change a run. */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * Outages are paced by the caller (default false; `tgw watch` turns it on: its backoff between
   * reconciles paces its attempts while the API is down). No answer, or a 502, 503 or 504, marks the
   * API down; a call then retries at most once, as the probe of ./outage.ts, and only when no other
   * call's probe has found the API still down since its failure; calls not sent are not retried.
   */
  probeOutages?: boolean;
  /**
   * Called when a call has waited `WAITING_AFTER_MS` (2 s) for its response or a rate-limit slot, then
   * every 10 s while it still waits, so a long wait can say what it waits for (each report up to
   * 0.25 s late: one timer looks at every wait, ./waits.ts). Exceptions are ignored.
   */
  onWaiting?: (event: WaitingEvent) => void;
  /**
   * Directory of rate-limit budgets shared by consecutive processes on this machine (./budget.ts,
   * e.g. `defaultBudgetDir()`); used only when the client limits its rate. Default: none.
   */
  budgetDir?: string;
}

/**
 * What the engine needs from the API. `T` is the caller's claim about the response shape; the client
 * does not validate it.
 */
export interface Api {
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<T>;
  get<T = unknown>(path: string, options?: Omit<RequestOptions, "body">): Promise<T>;
  post<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T>;
  put<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T>;
  patch<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T>;
  delete(path: string, options?: Omit<RequestOptions, "body">): Promise<void>;
  list<T = unknown>(path: string, listKey: string, options?: ListOptions): AsyncGenerator<T, void, undefined>;
  listAll<T = unknown>(path: string, listKey: string, options?: ListOptions): Promise<T[]>;
}

type Attempt =
  | Answer
  /** `sent: false`: not sent, the API being unreachable (see the module doc). */
  | { failure: Failure; error: unknown; sent?: false };

/** HTTP client of the API. One per base URL and key; safe for concurrent calls. */
export class ApiClient implements Api {
  readonly #base: URL;
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #retry: RetryOptions;
  readonly #timeoutMs: number;
  readonly #limiter: RateLimiter | undefined;
  /** Where the limiter's budget is kept between processes (./budget.ts); undefined: nowhere. */
  readonly #budgetFile: string | undefined;
  readonly #onResponse: ((event: ResponseEvent) => void) | undefined;
  /** Reports long waits to `onWaiting`, if given. */
  readonly #waits: WaitWatch | undefined;
  readonly #agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });
  readonly #probeOutages: boolean;
  /** The headers of every call, without and with a body (shared: undici does not change them). */
  readonly #headers: Record<string, string>;
  readonly #bodyHeaders: Record<string, string>;
  readonly #outage: OutageGate<Attempt>;
  #closed = false;

  /** @throws UsageError when `baseUrl` is not an http(s) URL. */
  constructor(options: ApiClientOptions) {
    this.#base = parseBaseUrl(options.baseUrl);
    this.#basePath = this.#base.pathname.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const rate = resolveRateLimit(this.#base, options.rateLimit);
    this.#limiter = rate === undefined ? undefined : new RateLimiter(rate);
    this.#budgetFile =
      rate && options.budgetDir ? budgetFile(options.budgetDir, this.#base.href, this.#apiKey) : undefined;
    if (rate && this.#budgetFile) this.#limiter?.seed(loadBudget(this.#budgetFile, rate.windowMs));
    this.#onResponse = options.onResponse;
    this.#probeOutages = options.probeOutages ?? false;
    this.#outage = new OutageGate(this.#probeOutages);
    this.#waits = options.onWaiting
      ? new WaitWatch(options.onWaiting, WAITING_AFTER_MS, WAITING_EVERY_MS)
      : undefined;
    this.#headers = {
      authorization: `Bearer ${this.#apiKey}`,
      "service-version": "2",
      accept: "application/json",
      "user-agent": "tunnelgw",
    };
    this.#bodyHeaders = { ...this.#headers, "content-type": "application/json" };
  }

  /**
   * Sends one call (with retries) and returns the parsed JSON body, or undefined for an empty body.
   * @param path relative to the base URL, starting with `/`, e.g. `/api_keys/ak_123`.
   * @throws ApiError on a non-2xx answer or an unreadable success body.
   * @throws NetworkError when no answer came (after the retries the method allows).
   * @throws `options.signal.reason` when aborted.
   */
  async request<T = unknown>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
    const url = this.#url(path, options.query);
    return (await this.#send(method, url, options)).value as T;
  }

  /** GET `path`. Errors as `request`. */
  get<T = unknown>(path: string, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.request<T>("GET", path, options);
  }

  /** POST `body` to `path` (a create: never retried except on 429). Errors as `request`. */
  post<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.request<T>("POST", path, options ? { ...options, body } : { body });
  }

  /** PUT `body` at `path` (modules). Errors as `request`. */
  put<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.request<T>("PUT", path, options ? { ...options, body } : { body });
  }

  /** PATCH `path` with `body`. Errors as `request`. */
  patch<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.request<T>("PATCH", path, options ? { ...options, body } : { body });
  }

  /** DELETE `path`. Errors as `request` (a 404 is an `ApiError`; the caller decides if that is fine). */
  async delete(path: string, options?: Omit<RequestOptions, "body">): Promise<void> {
    await this.request("DELETE", path, options);
  }

  /**
   * Yields the items of a list, page after page, following `next_page_uri` until it is null.
   * `next_page_uri` is only followed when it has the base URL's origin: the API key is never sent elsewhere.
   * @param listKey the envelope key holding the items, e.g. `keys` for `/api_keys`.
   * @throws RangeError when `limit` is not an integer in 1..100.
   * @throws ApiError when a page has no array under `listKey`, or `next_page_uri` points to another
   *   origin or back to the same page; otherwise as `request`.
   */
  async *list<T = unknown>(
    path: string,
    listKey: string,
    options: ListOptions = {},
  ): AsyncGenerator<T, void, undefined> {
    const { limit } = options;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
      throw new RangeError(`list limit must be an integer in 1..100, got ${limit}`);
    }
    let url: URL | undefined = this.#url(path, { ...options.query, limit });
    while (url !== undefined) {
      const { status, value } = await this.#send("GET", url, { signal: options.signal });
      const where = this.#displayPath(url, true);
      for (const item of pageItems(value, listKey, where, status)) yield item as T;
      url = this.#nextPage(isRecord(value) ? value.next_page_uri : undefined, url, where, status);
    }
  }

  /** Collects `list` into an array. Errors as `list`. */
  async listAll<T = unknown>(path: string, listKey: string, options?: ListOptions): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this.list<T>(path, listKey, options)) all.push(item);
    return all;
  }

  /**
   * Rejects calls waiting for a rate-limit slot, then closes the kept-alive connections once in-flight
   * requests end. Later calls reject with a `TgwError` of code `closed`.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#limiter?.dispose(closedError());
    if (this.#limiter && this.#budgetFile) saveBudget(this.#budgetFile, this.#limiter.recentEnds());
    await this.#agent.close();
  }

  /**
   * Sends one call, retrying transient failures and retryable statuses (with backoff or Retry-After);
   * one `ResponseEvent` per attempt that was sent.
   * @throws NetworkError, ApiError (apiErrorFromResponse), a `closed` TgwError, `signal.reason`.
   */
  async #send(
    method: HttpMethod,
    url: URL,
    { body, signal, fence }: Pick<RequestOptions, "body" | "signal" | "fence">,
  ): Promise<{ status: number; value: unknown }> {
    signal?.throwIfAborted();
    const path = this.#displayPath(url, true);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const shown = this.#displayPath(url, false);
    const call: OutageCall = { allowed: this.#outage.outages, final: false, fence };
    for (let attempt = 1; ; attempt++) {
      if (this.#closed) throw closedError();
      const { result, event } = await this.#timedAttempt(method, url, shown, payload, signal, attempt, call);
      if ("failure" in result) {
        await sleep(this.#retryAfterFailure(method, url, result, event, attempt, call.final), signal);
        continue;
      }
      const { status, text } = result;
      if (status >= 200 && status < 300) {
        event.status = status;
        this.#emit(event);
        return { status, value: parseSuccess(method, path, status, text) };
      }
      await sleep(this.#retryAfterStatus(method, path, result, event, attempt, call.final), signal);
    }
  }

  /**
   * One attempt: waits for a rate-limit slot (if limited), then for the answer. Returns it with the
   * attempt's event, its `status` (and failure, retry) still to be set.
   */
  async #timedAttempt(
    method: HttpMethod,
    url: URL,
    shown: string,
    payload: string | undefined,
    signal: AbortSignal | undefined,
    attempt: number,
    call: OutageCall,
  ): Promise<{ result: Attempt; event: ResponseEvent }> {
    const waitStarted = performance.now();
    const release = this.#limiter
      ? await this.#waiting({ method, path: shown, for: "rate-limit" }, this.#limiter.acquire(signal))
      : undefined;
    const waitedMs = performance.now() - waitStarted;
    let started = performance.now();
    let result: Attempt | undefined;
    try {
      while (result === undefined) {
        if (call.fence) {
          await call.fence.check();
          started = performance.now();
        }
        result = await this.#waiting(
          { method, path: shown, for: "response", timeoutMs: this.#timeoutMs },
          this.#gatedAttempt(method, url, payload, signal, call),
        ).catch((err: unknown) => {
          // Held back by the fence (the process stalled between its check and the send): check again.
          if (err instanceof HeldBack) return undefined;
          throw err;
        });
      }
    } finally {
      release?.();
    }
    // `status` is set on every path.
    const event: ResponseEvent = {
      method,
      path: shown,
      status: undefined,
      attempt,
      durationMs: performance.now() - started,
    };
    if (waitedMs >= RATE_LIMIT_WAIT_REPORTED_MS) event.rateLimitWaitMs = Math.round(waitedMs);
    return { result, event };
  }

  /**
   * After an attempt that got no answer: emits its event (when it was sent) and returns the delay
   * before the next one; only a transient failure of an idempotent call is retried.
   * @throws NetworkError when it is not retried.
   */
  #retryAfterFailure(
    method: HttpMethod,
    url: URL,
    result: Extract<Attempt, { failure: Failure }>,
    event: ResponseEvent,
    attempt: number,
    final: boolean,
  ): number {
    const mayRetry = attempt <= this.#retry.retries && !final;
    const { failure } = result;
    const retryInMs =
      mayRetry && failure.transient && isIdempotent(method) ? backoffDelay(attempt, this.#retry) : undefined;
    if (result.sent !== false) {
      event.status = undefined;
      event.failure = failure.reason;
      event.retryInMs = retryInMs;
      this.#emit(event);
    }
    if (retryInMs === undefined) {
      throw new NetworkError({
        method,
        url: url.origin + url.pathname + url.search,
        reason: failure.reason,
        description: failure.description,
        attempts: attempt,
        mayHaveBeenCreated: method === "POST" && failure.maybeSent,
        unreachable: !failure.maybeSent,
        cause: result.error,
      });
    }
    return retryInMs;
  }

  /**
   * After an error status: emits the attempt's event and returns the delay before the next attempt
   * (Retry-After when given and not too long, else backoff) for a retryable status.
   * @throws the ApiError of the response when it is not retried.
   */
  #retryAfterStatus(
    method: HttpMethod,
    path: string,
    { status, rawHeaders, text }: Answer,
    event: ResponseEvent,
    attempt: number,
    final: boolean,
  ): number {
    const mayRetry = attempt <= this.#retry.retries && !final;
    let retryInMs: number | undefined;
    if (mayRetry && isRetryableStatus(method, status)) {
      const after = parseRetryAfter(headerOf(rawHeaders, "retry-after"));
      if (after === undefined) retryInMs = backoffDelay(attempt, this.#retry);
      else if (after <= this.#retry.maxRetryAfterMs) retryInMs = after;
    }
    event.status = status;
    event.retryInMs = retryInMs;
    this.#emit(event);
    if (retryInMs === undefined) {
      throw apiErrorFromResponse({
        method,
        path,
        status,
        contentType: headerOf(rawHeaders, "content-type"),
        body: text,
        retryAfterMs: parseRetryAfter(headerOf(rawHeaders, "retry-after")),
      });
    }
    return retryInMs;
  }

  /**
   * `#attempt` through the outage gate (./outage.ts). Sets `call.final` when the call must not be
   * retried under `probeOutages` (not sent, or its probe found the API still down).
   */
  async #gatedAttempt(
    method: HttpMethod,
    url: URL,
    payload: string | undefined,
    signal: AbortSignal | undefined,
    call: OutageCall,
  ): Promise<Attempt> {
    const passage = await this.#outage.pass(
      call.allowed,
      () => this.#attempt(method, url, payload, signal, call.fence),
      (result) => this.#isOutage(result),
    );
    if ("down" in passage) {
      call.final = this.#probeOutages;
      return notSent(passage.down);
    }
    call.allowed = passage.allowed;
    call.final = this.#probeOutages && passage.probe && this.#isOutage(passage.result);
    return passage.result;
  }

  /** Whether an attempt's result means the API is down (see `probeOutages`). */
  #isOutage(result: Attempt): boolean {
    if ("failure" in result)
      return !result.failure.maybeSent || (this.#probeOutages && result.failure.transient);
    return this.#probeOutages && OUTAGE_STATUSES.has(result.status);
  }

  /**
   * One HTTP exchange under the per-attempt deadline. Throws only the caller's abort reason, and
   * HeldBack when `fence` said no right before the send.
   */
  async #attempt(
    method: HttpMethod,
    url: URL,
    payload: string | undefined,
    signal: AbortSignal | undefined,
    fence: Fence | undefined,
  ): Promise<Attempt> {
    const sent = {
      origin: url.origin,
      path: url.pathname + url.search,
      method,
      headers: payload === undefined ? this.#headers : this.#bodyHeaders,
      body: payload,
    };
    const result = await exchange(this.#agent, sent, this.#timeoutMs, signal, fence?.stillValid);
    if (!(result instanceof ExchangeFailure)) return result;
    const { error } = result;
    if (result.timedOut) return { failure: timeoutFailure(this.#timeoutMs), error };
    return { failure: classifyFailure(error), error };
  }

  #url(path: string, query: Query | undefined): URL {
    if (!path.startsWith("/")) throw new TypeError(`API path must start with "/": ${path}`);
    const url = new URL(this.#base.origin + this.#basePath + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** The path shown in errors and events: relative to the base URL, with or without the query. */
  #displayPath(url: URL, withQuery: boolean): string {
    const path = url.pathname.startsWith(`${this.#basePath}/`)
      ? url.pathname.slice(this.#basePath.length)
      : url.pathname;
    return withQuery ? path + url.search : path;
  }

  #nextPage(next: unknown, current: URL, where: string, status: number): URL | undefined {
    if (next === null || next === undefined) return undefined;
    const fail = (message: string) => new ApiError({ method: "GET", path: where, status, message });
    if (typeof next !== "string") throw fail("next_page_uri is not a string");
    let url: URL;
    try {
      url = new URL(next, this.#base);
    } catch {
      throw fail(`next_page_uri is not a URL: ${next}`);
    }
    if (url.origin !== this.#base.origin) {
      throw fail(`next_page_uri ${url.origin} is not the API origin ${this.#base.origin}; not following it`);
    }
    if (url.href === current.href) throw fail(`next_page_uri points to the same page: ${next}`);
    return url;
  }

  /** `work`, reported to `onWaiting` while it takes long. */
  #waiting<T>(what: Omit<WaitingEvent, "waitedMs">, work: Promise<T>): Promise<T> {
    return this.#waits ? this.#waits.watch(what, work) : work;
  }

  #emit(event: ResponseEvent): void {
    try {
      this.#onResponse?.(event);
    } catch {
      // Deliberately ignored: see ApiClientOptions.onResponse.
    }
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`invalid API base URL: ${baseUrl}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`API base URL must be http or https: ${baseUrl}`);
  }
  return url;
}

function parseSuccess(method: HttpMethod, path: string, status: number, text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError({
      method,
      path,
      status,
      message: "the response body is not valid JSON",
      mayHaveBeenCreated: method === "POST",
    });
  }
}

/** Answers of a gateway or server that is down, or unavailable as a whole. */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

/** What a call carries from attempt to attempt: its view of the outage gate (./outage.ts), its last check. */
interface OutageCall {
  /** The most outages it may have seen and still go out (`OutageGate.pass`). */
  allowed: number;
  /** Not to be retried (set by `#gatedAttempt`). */
  final: boolean;
  /** `RequestOptions.fence`. */
  fence: Fence | undefined;
}

/** The attempt of a call held back by the outage gate, from the outage's last result. */
function notSent(down: Attempt): Attempt {
  const failure: Failure =
    "failure" in down
      ? { ...down.failure, maybeSent: false }
      : {
          reason: `HTTP_${down.status}`,
          description: `the API answered ${down.status}`,
          transient: true,
          maybeSent: false,
        };
  const error = "failure" in down ? down.error : undefined;
  return { failure: { ...failure, description: `${failure.description}; not sent` }, error, sent: false };
}

function closedError(): TgwError {
  return new TgwError("closed", "the API client is closed");
}

/**
 * The items of a list page: the array under its envelope key `listKey` (docs/api.md > Conventions common to all operations).
 * @throws ApiError (a GET of `path` answered `status`) when the page has no such array
 */
export function pageItems(page: unknown, listKey: string, path: string, status: number): unknown[] {
  const items = isRecord(page) ? page[listKey] : undefined;
  if (!Array.isArray(items)) {
    throw new ApiError({ method: "GET", path, status, message: `the response has no list "${listKey}"` });
  }
  return items;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
