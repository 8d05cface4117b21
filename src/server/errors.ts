/**
 * The reference server's one catalogue of coded errors (docs/design.md section 5 > Errors). Every
 * failure the server answers on purpose is an `ApiProblem` made by one of the `problems` below; its
 * body is exactly
 *
 *   {"error_code": "TGW_<number>", "status_code": <int>, "msg": "<text naming the field>",
 *    "details": {"operation_id": "op_<id>"}}
 *
 * Codes are grouped by status: 10xx 400, 11xx 401, 12xx 403, 13xx 404, 14xx 405, 15xx 409,
 * 16xx 413, 17xx 415, 18xx 429, 19xx 5xx. A 500 (`TGW_1900`) is only ever a bug.
 */

/** A deliberate error answer of the API. */
export class ApiProblem extends Error {
  /** `TGW_<number>`; Fastify keeps an error's own `code` when it passes through its hooks. */
  readonly code: string;
  readonly statusCode: number;
  /** Extra response headers (`Allow` on a 405, `Retry-After` on a 429). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, statusCode: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiProblem";
    this.code = code;
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

/** One entry of the catalogue: call it to make the problem; `code` and `status` describe it. */
export type ProblemFactory<A extends unknown[]> = ((...args: A) => ApiProblem) & {
  code: string;
  status: number;
};

function define<A extends unknown[]>(
  code: string,
  status: number,
  message: (...args: A) => string,
  headers?: (...args: A) => Record<string, string>,
): ProblemFactory<A> {
  const make = (...args: A) => new ApiProblem(code, status, message(...args), headers?.(...args));
  return Object.assign(make, { code, status });
}

/** Every coded error of the server. Messages name the field and, for limits, the limit. */
export const problems = {
  // 400: the request cannot be understood or breaks a rule of a field.
  invalidJson: define("TGW_1000", 400, (detail: string) => `the request body is not valid JSON: ${detail}`),
  badRequest: define("TGW_1001", 400, (message: string) => message),
  invalidQuery: define("TGW_1002", 400, (message: string) => message),
  /** Schema validation: one message per failed rule, joined by "; ". */
  invalidFields: define("TGW_1003", 400, (messages: string[]) => messages.join("; ")),
  /** A value that passes the schema but is refused on inspection (a key that does not match...). */
  invalidValue: define("TGW_1004", 400, (message: string) => message),
  missingServiceVersion: define(
    "TGW_1005",
    400,
    () => "the Service-Version header is missing: send Service-Version: 2",
  ),
  unsupportedServiceVersion: define(
    "TGW_1006",
    400,
    (got: string) => `Service-Version ${JSON.stringify(got)} is not supported: send Service-Version: 2`,
  ),

  // 401: no usable credential.
  missingCredential: define(
    "TGW_1100",
    401,
    () => "the Authorization header is missing: send Authorization: Bearer <API key token>",
  ),
  malformedCredential: define(
    "TGW_1101",
    401,
    () => "the Authorization header must be Bearer <API key token>",
  ),
  invalidCredential: define("TGW_1102", 401, () => "the API key token is not valid (unknown or deleted key)"),

  // 403: authenticated, but not allowed.
  ownerNotAllowed: define(
    "TGW_1200",
    403,
    (ownerId: string) =>
      `owner_id: only an admin may set the owner to someone else (${ownerId} is not the caller)`,
  ),
  abuseReportsNotAllowed: define(
    "TGW_1201",
    403,
    () => "this account is not authorized to use abuse reports",
  ),
  adminOnly: define("TGW_1202", 403, (what: string) => `only an admin may ${what}`),
  /** A non-admin key changing or deleting what another user or bot owns (docs/server.md > Accounts and roles). */
  notOwner: define(
    "TGW_1203",
    403,
    (what: string, id: string) =>
      `${what} ${id} belongs to someone else: a non-admin key may change or delete only what its user or bot owns`,
  ),

  // 404: nothing there.
  routeNotFound: define("TGW_1300", 404, (method: string, path: string) => `no such path: ${method} ${path}`),
  notFound: define("TGW_1301", 404, (what: string, id: string) => `no ${what} with id ${id}`),
  /** A field names an object that does not exist (or is not of the kind the field holds). */
  unknownReference: define(
    "TGW_1302",
    404,
    (field: string, what: string, id: string) => `${field}: no ${what} with id ${id}`,
  ),
  moduleNotSet: define("TGW_1303", 404, (what: string, path: string) => `no ${what} is set at ${path}`),

  // 405
  methodNotAllowed: define(
    "TGW_1400",
    405,
    (method: string, path: string, allowed: string[]) =>
      `method ${method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`,
    (_m: string, _p: string, allowed: string[]) => ({ allow: allowed.join(", ") }),
  ),

  // 409
  inUse: define(
    "TGW_1500",
    409,
    (what: string, id: string, users: string[]) =>
      `${what} ${id} is in use by ${users.join(", ")}: remove those references first`,
  ),

  // 413
  bodyTooLarge: define(
    "TGW_1600",
    413,
    (limit: number) => `the request body is larger than the limit of ${limit} bytes`,
  ),

  // 415
  unsupportedMediaType: define(
    "TGW_1700",
    415,
    (got: string) =>
      `Content-Type ${got === "" ? "is missing" : JSON.stringify(got)}${got === "" ? "" : " is not supported"}: send Content-Type: application/json with a request body`,
  ),

  // 429
  rateLimited: define(
    "TGW_1800",
    429,
    (limit: string, retryAfterSeconds: number) =>
      `rate limit of ${limit} per API key exceeded: retry after ${retryAfterSeconds} s (the request was not processed)`,
    (_l: string, retryAfterSeconds: number) => ({ "retry-after": String(retryAfterSeconds) }),
  ),
  injectedRateLimit: define(
    "TGW_1801",
    429,
    (retryAfterSeconds: number) =>
      `injected fault: rate limited, retry after ${retryAfterSeconds} s (the request was not processed)`,
    (retryAfterSeconds: number) => ({ "retry-after": String(retryAfterSeconds) }),
  ),

  // 5xx
  internal: define(
    "TGW_1900",
    500,
    () => "internal error: a bug in the reference server (see its log for this operation id)",
  ),
  injectedInternal: define("TGW_1901", 500, () => "injected fault: internal error"),
  injectedUnavailable: define("TGW_1902", 503, () => "injected fault: service unavailable"),
} as const;

/** The error body of docs/design.md section 5. */
export interface ErrorBody {
  error_code: string;
  status_code: number;
  msg: string;
  details: { operation_id: string };
}

/** Builds the error body of a problem answered to the operation `operationId` (`op_...`). */
export function errorBody(problem: ApiProblem, operationId: string): ErrorBody {
  return {
    error_code: problem.code,
    status_code: problem.statusCode,
    msg: problem.message,
    details: { operation_id: operationId },
  };
}
