/**
 * Public surface of the API client. The engine imports from here only.
 * @see ./client.ts for the behaviour (headers, retries, rate limit, abort).
 */

export { defaultBudgetDir } from "./budget.js";
export {
  type Api,
  ApiClient,
  type ApiClientOptions,
  type Fence,
  type HttpMethod,
  type ListOptions,
  pageItems,
  type Query,
  type RequestOptions,
  type ResponseEvent,
  WAITING_AFTER_MS,
  type WaitingEvent,
} from "./client.js";
export { ApiError, NetworkError } from "./errors.js";
export { PRODUCTION_RATE_LIMIT, type RateLimit } from "./rate-limit.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
