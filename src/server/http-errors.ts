/**
 * The errors Node's HTTP parser and Fastify's router answer before any hook of ours runs, given the
 * documented error body too (docs/server.md > Requests and errors):
 *
 * - a path that is not valid percent-encoding (`/api_keys/ak_%zz`): 400 `TGW_1001`;
 * - a path parameter over Fastify's 100 characters: 404 `TGW_1301` (no id is that long);
 * - what the HTTP parser refuses (headers over Node's 16 KiB, a malformed request line, an unknown
 *   method): 431 or 400 `TGW_1001`, written on the socket, which is then closed;
 * - `CONNECT` (Node hands it to a `connect` listener or drops it): 405 `TGW_1400`, then closed.
 *
 * These answers skip the request log and recorder (no request object exists for the last two).
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiProblem, errorBody, problems } from "./errors.js";
import { newOperationId } from "./ids.js";

/** Fastify's `frameworkErrors` option: bad percent-encoding and over-long path parameters. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.raw.url?.split("?")[0] ?? "";
  const problem =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? problems.notFound(
          "object",
          `${path.slice(path.lastIndexOf("/") + 1, path.lastIndexOf("/") + 41)}... (ids are at most 100 characters)`,
        )
      : error.code === "FST_ERR_BAD_URL"
        ? problems.badRequest("the request path is not valid percent-encoding")
        : new ApiProblem(problems.badRequest.code, 400, "the request could not be routed");
  reply.code(problem.statusCode).headers(problem.headers).send(errorBody(problem, request.id));
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  431: "Request Header Fields Too Large",
};

/** A complete HTTP/1.1 answer with the error body, closing the connection. */
function rawAnswer(problem: ApiProblem): string {
  const body = JSON.stringify(errorBody(problem, newOperationId()));
  const headers = Object.entries(problem.headers).map(([k, v]) => `${k}: ${v}\r\n`);
  return (
    `HTTP/1.1 ${problem.statusCode} ${REASONS[problem.statusCode] ?? "Error"}\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `${headers.join("")}connection: close\r\n\r\n${body}`
  );
}

/** Fastify's `clientErrorHandler` option: what Node's HTTP parser refused. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem =
    err.code === "HPE_HEADER_OVERFLOW"
      ? new ApiProblem(problems.badRequest.code, 431, "the request headers are larger than 16 KiB")
      : err.code === "HPE_INVALID_METHOD"
        ? problems.badRequest("unknown HTTP method")
        : problems.badRequest("the HTTP request is malformed");
  socket.end(rawAnswer(problem));
}

/** The server's `connect` listener: CONNECT is no method of this API. */
export function onConnect(request: IncomingMessage, socket: Duplex): void {
  const path = request.url ?? "";
  socket.end(
    rawAnswer(problems.methodNotAllowed("CONNECT", path, ["GET", "POST", "PUT", "PATCH", "DELETE"])),
  );
}
