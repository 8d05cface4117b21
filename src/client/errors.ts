/**
 * The two errors the API client raises on purpose:
 * - `ApiError`: the API answered, but not with a usable success (non-2xx, or a 2xx body that is not JSON).
 * - `NetworkError`: no answer (connection refused or reset, timeout, DNS...).
 *
 * A POST whose outcome is unknown (5xx, reset or timeout after it may have reached the server) says so
 * in its message and sets `mayHaveBeenCreated`, so the engine can look for the resource (by its
 * ownership marker) instead of creating it a second time.
 */
import { STATUS_CODES } from "node:http";
import { TgwError } from "../errors.js";

/** Appended to the message of a POST whose outcome is unknown. */
export const CREATE_OUTCOME_UNKNOWN =
  "the resource may or may not have been created: list before creating it again";

/** Fields of an `ApiError`. `message` is the server's `msg` (or a description of an unusable body). */
export interface ApiErrorInit {
  method: string;
  /** Path relative to the base URL, with its query string, e.g. `/api_keys?limit=10`. */
  path: string;
  /** HTTP status of the response. */
  status: number;
  message: string;
  /** `TGW_<n>` from the error body; undefined when the body was not an API error body. */
  errorCode?: string | undefined;
  /** `details.operation_id` from the error body (`op_...`), for support requests. */
  operationId?: string | undefined;
  /** True only for a POST that may have been processed (5xx, or a 2xx with an unreadable body). */
  mayHaveBeenCreated?: boolean;
  /** The response's `Retry-After`, in ms from when it arrived (429, 503...), when it had one. */
  retryAfterMs?: number | undefined;
}

/**
 * The API answered with an error (any non-2xx), or with a success body the client cannot read.
 * `message` is the server's human text; `format()` gives the full one-line report.
 */
export class ApiError extends TgwError {
  readonly status: number;
  readonly errorCode: string | undefined;
  readonly operationId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly mayHaveBeenCreated: boolean;
  /** How long the API asked to wait (`Retry-After`), in ms; callers retrying later honour it (`tgw watch`). */
  readonly retryAfterMs: number | undefined;
  /** The server's text alone, so `format()` can put the operation id next to it. */
  readonly #detail: string;

  constructor(init: ApiErrorInit) {
    const created = init.mayHaveBeenCreated === true;
    super("api", created ? `${init.message}; ${CREATE_OUTCOME_UNKNOWN}` : init.message);
    this.#detail = init.message;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.operationId = init.operationId;
    this.method = init.method;
    this.path = init.path;
    this.mayHaveBeenCreated = created;
    this.retryAfterMs = init.retryAfterMs;
  }

  /**
   * One line for people, e.g.
   * `POST /api_keys: 400 TGW_1003 description is 300 bytes, limit 255 (operation op_123)`;
   * a POST of unknown outcome ends with `; the resource may or may not have been created...`.
   */
  format(): string {
    const code = this.errorCode === undefined ? "" : ` ${this.errorCode}`;
    const op = this.operationId === undefined ? "" : ` (operation ${this.operationId})`;
    const note = this.mayHaveBeenCreated ? `; ${CREATE_OUTCOME_UNKNOWN}` : "";
    return `${this.method} ${this.path}: ${this.status}${code} ${this.#detail}${op}${note}`;
  }
}

/**
 * Builds the `ApiError` for a non-2xx response. Reads the server error body
 * `{"error_code":"TGW_<n>","status_code":<int>,"msg":"...","details":{"operation_id":"op_..."}}`;
 * any other body (HTML from a proxy, empty...) gives a message from the status and the body's type.
 */
export function apiErrorFromResponse(res: {
  method: string;
  path: string;
  status: number;
  contentType: string | undefined;
  body: string;
  retryAfterMs?: number | undefined;
}): ApiError {
  const created = res.method === "POST" && res.status >= 500;
  const parsed = parseErrorBody(res.body);
  if (parsed !== undefined) {
    return new ApiError({ ...res, ...parsed, mayHaveBeenCreated: created });
  }
  const reason = STATUS_CODES[res.status] ?? "HTTP error";
  const what =
    res.body.length === 0
      ? "empty body"
      : `${res.contentType ?? "no content type"}, ${Buffer.byteLength(res.body)} bytes`;
  return new ApiError({
    ...res,
    message: `${reason} (the response is not an API error body: ${what})`,
    mayHaveBeenCreated: created,
  });
}

function parseErrorBody(
  body: string,
): { message: string; errorCode: string | undefined; operationId: string | undefined } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.msg !== "string") return undefined;
  const details = isRecord(value.details) ? value.details : {};
  return {
    message: value.msg,
    errorCode: typeof value.error_code === "string" ? value.error_code : undefined,
    operationId: typeof details.operation_id === "string" ? details.operation_id : undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Fields of a `NetworkError`. */
export interface NetworkErrorInit {
  method: string;
  /** Full URL that was attempted (origin + path, query included). */
  url: string;
  /** Short machine reason: a system or undici error code (`ECONNRESET`, `UND_ERR_SOCKET`...) or `timeout`. */
  reason: string;
  /** Human description of the reason, e.g. `connection reset`. */
  description: string;
  /** Attempts made, retries included (>= 1). */
  attempts: number;
  /** True for a POST that may have reached the server before the failure. */
  mayHaveBeenCreated: boolean;
  /** True when no connection could be made (refused, DNS, unreachable host, connect timeout). */
  unreachable?: boolean;
  cause?: unknown;
}

/**
 * No usable answer from the API: the connection failed, was reset or closed, or the per-attempt timeout
 * elapsed. The message names the method, URL, attempts and reason.
 */
export class NetworkError extends TgwError {
  readonly method: string;
  readonly url: string;
  readonly reason: string;
  readonly attempts: number;
  readonly mayHaveBeenCreated: boolean;
  /** No connection could be made: the API is down or unreachable, nothing was sent. */
  readonly unreachable: boolean;

  constructor(init: NetworkErrorInit) {
    const tries = init.attempts === 1 ? "1 attempt" : `${init.attempts} attempts`;
    const tail = init.mayHaveBeenCreated ? `; ${CREATE_OUTCOME_UNKNOWN}` : "";
    super(
      "network",
      `${init.method} ${init.url} failed after ${tries}: ${init.description} (${init.reason})${tail}`,
      { cause: init.cause },
    );
    this.method = init.method;
    this.url = init.url;
    this.reason = init.reason;
    this.attempts = init.attempts;
    this.mayHaveBeenCreated = init.mayHaveBeenCreated;
    this.unreachable = init.unreachable === true;
  }
}
