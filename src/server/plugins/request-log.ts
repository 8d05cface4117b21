/**
 * Request log and recorder, and the one hook per stage that every request runs.
 *
 * Each request gets an operation id (`op_...`, Fastify's request id, sent back in error bodies). API
 * requests (not debug ones) are recorded in order for tests (`startTestServer().requests`,
 * `GET /debug/requests`), keeping at least the last 100 000 (at most twice as many); a record's
 * status is set when the answer is sent (0 until then, and for a request dropped by fault injection).
 * With a logger, one structured pino line per request when it ends: method, url, status, duration and
 * operation id, never headers or bodies, so no token, key or secret can reach the log.
 *
 * Hooks: Fastify runs each hook of a stage as a step of its own (a runner, a callback, for `onResponse`
 * two listeners on every answer). So the server has one `onRequest` hook, which records the request
 * and then runs the `requestChecks` the other plugins add, in the order they were registered (fault
 * injection, authentication, Service-Version, rate limit: ../app.ts); one `onSend` hook, which records
 * the status and runs the `sendSteps` (../plugins/shutdown.ts); and an `onResponse` hook only for
 * the log line.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { RecordedRequest, RequestCheck, SendStep } from "../types.js";

const MAX_RECORDED = 100_000;

/**
 * A recorded request, and the account of its key once known (GET /debug/requests shows an account
 * its own). The account is a private field: not shown in JSON, nor compared by tests' `toEqual`. (A
 * WeakMap beside the records cost an entry per request, and the garbage collector's work on it.)
 */
class Recorded implements RecordedRequest {
  method: string;
  path: string;
  status = 0;
  #account: string | undefined;

  constructor(method: string, path: string) {
    this.method = method;
    this.path = path;
  }

  static accountOf(record: RecordedRequest): string | undefined {
    return #account in record ? record.#account : undefined;
  }

  static setAccount(record: RecordedRequest, accountId: string): void {
    if (#account in record) record.#account = accountId;
  }
}

/** The account of a recorded request's key, or undefined (not authenticated, or not recorded here). */
export const accountOfRecord = (record: RecordedRequest): string | undefined => Recorded.accountOf(record);

/** Records the account of a recorded request's key (../plugins/auth.ts). */
export const setAccountOfRecord = (record: RecordedRequest, accountId: string): void =>
  Recorded.setAccount(record, accountId);

async function requestLogPlugin(app: FastifyInstance): Promise<void> {
  const recorded: RecordedRequest[] = [];
  const checks: RequestCheck[] = [];
  const sendSteps: SendStep[] = [];
  // Without a logger (Fastify's no-op one has no levels) the line is not even built.
  const logs = typeof (app.log as { isLevelEnabled?: unknown }).isLevelEnabled === "function";
  app.decorate("recordedRequests", recorded);
  app.decorate("requestChecks", checks);
  app.decorate("sendSteps", sendSteps);
  app.decorateRequest("recorded", undefined);
  app.decorateRequest("debugRoute", false);
  // Callback-style hooks: an async one costs a promise and a microtask turn on every request.
  app.addHook("onRequest", (request, reply, done) => {
    // Read once here: every `request.routeOptions` builds a new object.
    request.debugRoute = request.routeOptions.config?.debug === true;
    if (!request.debugRoute) {
      const url = request.url;
      const q = url.indexOf("?");
      const entry = new Recorded(request.method, q === -1 ? url : url.slice(0, q));
      // Trimmed by half the buffer at once: a splice per request at the cap made every request O(n)
      // and halved the server's throughput after 100 000 requests. Amortised, a request costs O(1)
      // (bench/server.ts runs past 1,000,000 requests to show it).
      if (recorded.length >= 2 * MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);
      recorded.push(entry);
      request.recorded = entry;
    }
    for (let i = 0; i < checks.length; i++) {
      try {
        // Answered by the check: Fastify's way in a callback hook is not to call `done`.
        if ((checks[i] as RequestCheck)(request, reply) === true) return;
      } catch (err) {
        return done(err as Error);
      }
    }
    done();
  });
  app.addHook("onSend", (request, reply, _payload, done) => {
    if (request.recorded) request.recorded.status = reply.statusCode;
    for (let i = 0; i < sendSteps.length; i++) (sendSteps[i] as SendStep)(request, reply);
    done();
  });
  if (logs) {
    app.addHook("onResponse", (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        "request",
      );
      done();
    });
  }
}

export default fp(requestLogPlugin, { name: "tgw-request-log" });
