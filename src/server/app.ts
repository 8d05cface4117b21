/**
 * The reference server as a Fastify app (the app-plugin layout of the official fastify/demo app):
 * buildApp registers the plugins in the order their checks must run (each adds its check to the one
 * onRequest hook of ./plugins/request-log.ts; fault injection and the rate limit only when enabled),
 * then one route plugin per resource. It does not listen: ./server.ts does, and tests use it over real HTTP.
 *
 * Order of checks on every request: record + operation id -> injected fault -> authentication (401)
 * -> Service-Version (400) -> rate limit (429) -> body parsing (415, 413, 400) -> schema validation
 * (400) -> the route's own checks (403, 404, 409, 400) -> one transaction of writes -> event.
 */
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { clientErrorHandler, frameworkErrors, onConnect } from "./http-errors.js";
import { newOperationId } from "./ids.js";
import {
  type FaultConfig,
  parseFaults,
  parsePublicUrl,
  parseRateLimit,
  type RateLimitConfig,
} from "./options.js";
import auth from "./plugins/auth.js";
import errorHandler from "./plugins/error-handler.js";
import faults from "./plugins/faults.js";
import fixtures from "./plugins/fixtures.js";
import jsonBody from "./plugins/json-body.js";
import rateLimit from "./plugins/rate-limit.js";
import requestLog from "./plugins/request-log.js";
import serviceVersion from "./plugins/service-version.js";
import shutdown from "./plugins/shutdown.js";
import store from "./plugins/store.js";
import validation from "./plugins/validation.js";
import routes from "./routes/index.js";
import "./types.js";

/** Largest accepted request body, in bytes (413 above). */
export const BODY_LIMIT = 1_048_576;

/** Settings of the app. */
export interface AppOptions {
  /** SQLite file that survives restarts; default: in memory. */
  dataPath?: string | undefined;
  /** Key that encrypts the secrets of the `dataPath` file (required with it; `TGW_DATA_KEY`). */
  dataKey?: string | undefined;
  /** Fixtures YAML loaded at start (see ./fixtures.ts). */
  fixtures?: string | undefined;
  /** Admin token valid for this run (see ./plugins/auth.ts). */
  bootstrapToken?: string | undefined;
  /** `N/WINDOW` (e.g. `120/60s`) or parsed; default: no limit. */
  rateLimit?: string | RateLimitConfig | undefined;
  /** Fault injection spec (e.g. `500=0.1,drop=0.02,seed=7`) or parsed; default: none. */
  faults?: string | FaultConfig | undefined;
  /** pino logger options, true for defaults, false (default) for none. */
  logger?: boolean | object | undefined;
  /** Base of every `uri` (`--public-url`); default: the listen address (set by ./server.ts). */
  publicUrl?: string | undefined;
  /** Check every response against `$defs.response` (tests); default false. */
  checkResponses?: boolean | undefined;
}

/**
 * Builds the app (not listening). Close it with `app.close()` (closes the store).
 * @throws UsageError for an invalid rate limit or faults spec; FixturesError for a bad fixtures file
 */
export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const rate = typeof options.rateLimit === "string" ? parseRateLimit(options.rateLimit) : options.rateLimit;
  const publicUrl = options.publicUrl === undefined ? "http://localhost" : parsePublicUrl(options.publicUrl);
  const faultConfig = typeof options.faults === "string" ? parseFaults(options.faults) : options.faults;
  const app = Fastify({
    logger: options.logger ?? false,
    // Fastify's own request lines are off: plugins/request-log.ts writes one line per request.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "operation_id" }),
    genReqId: () => newOperationId(),
    bodyLimit: BODY_LIMIT,
    // On close: idle keep-alive connections are closed, requests in flight finish (graceful).
    forceCloseConnections: "idle",
    // What the router and Node's parser refuse gets the documented error body too (./http-errors.ts).
    frameworkErrors,
    clientErrorHandler,
  });
  app.server.on("connect", onConnect);
  app.decorate("publicUrl", { base: publicUrl });
  try {
    await app.register(store, { dataPath: options.dataPath, dataKey: options.dataKey });
    await app.register(validation, { checkResponses: options.checkResponses });
    await app.register(jsonBody);
    await app.register(errorHandler);
    await app.register(requestLog);
    await app.register(shutdown);
    await app.register(faults, { faults: faultConfig });
    await app.register(fixtures, { fixtures: options.fixtures });
    await app.register(auth, { bootstrapToken: options.bootstrapToken });
    await app.register(serviceVersion);
    await app.register(rateLimit, { rateLimit: rate });
    await app.register(routes);
    await app.ready();
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
  return app;
}
