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
  app.decorate("recordedRequests", recorded);
  app.decorateRequest("recorded", undefined);
  app.addHook("onRequest", async (request) => {
    if (request.routeOptions.config?.debug) return;
    const entry: RecordedRequest = {
      method: request.method,
      path: request.url.split("?")[0] ?? "",
      status: 0,
    };
    // Trimmed by half the buffer at once: a splice per request at the cap made every request O(n) and
    // halved the server's throughput after 100 000 requests.
    if (recorded.length >= 2 * MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);
    recorded.push(entry);
    request.recorded = entry;
  });
  app.addHook("onResponse", async (request, reply) => {
    if (request.recorded) request.recorded.status = reply.statusCode;
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      "request",
    );
  });
}

export default fp(requestLogPlugin, { name: "tgw-request-log" });
