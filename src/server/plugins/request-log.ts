/**
 * Request log and recorder. Each request gets an operation id (`op_...`, Fastify's request id, sent
 * back in error bodies). When it ends, one structured pino line is logged: method, url, status,
 * duration and operation id, never headers or bodies, so no token, key or secret can reach the log.
 * API requests (not debug ones) are also recorded in order for tests (`startTestServer().requests`,
 * `GET /debug/requests`), keeping at least the last 100 000 (at most twice as many).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { RecordedRequest } from "../types.js";

const MAX_RECORDED = 100_000;

/** The account of each recorded request whose key was known (GET /debug/requests shows an account its own). */
export const accountOfRecord = new WeakMap<RecordedRequest, string>();

async function requestLogPlugin(app: FastifyInstance): Promise<void> {
  const recorded: RecordedRequest[] = [];
  // Without a logger (Fastify's no-op one has no levels) the line is not even built.
  const logs = typeof (app.log as { isLevelEnabled?: unknown }).isLevelEnabled === "function";
  app.decorate("recordedRequests", recorded);
  app.decorateRequest("recorded", undefined);
  app.decorateRequest("debugRoute", false);
  // Callback-style hooks: an async one costs a promise and a microtask turn on every request.
  app.addHook("onRequest", (request, _reply, done) => {
    // Read once here: every `request.routeOptions` builds a new object.
    request.debugRoute = request.routeOptions.config?.debug === true;
    if (request.debugRoute) return done();
    const url = request.url;
    const q = url.indexOf("?");
    const entry: RecordedRequest = {
      method: request.method,
      path: q === -1 ? url : url.slice(0, q),
      status: 0,
    };
    // Trimmed by half the buffer at once: a splice per request at the cap made every request O(n) and
    // halved the server's throughput after 100 000 requests. Amortised, a request costs O(1)
    // (bench/server.ts runs past 1,000,000 requests to show it).
    if (recorded.length >= 2 * MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);
    recorded.push(entry);
    request.recorded = entry;
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    if (request.recorded) request.recorded.status = reply.statusCode;
    if (logs) {
      request.log.info(
        {
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        "request",
      );
    }
    done();
  });
}

export default fp(requestLogPlugin, { name: "tgw-request-log" });
