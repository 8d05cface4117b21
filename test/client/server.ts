/**
 * A small real HTTP server for the client tests (node:http on an ephemeral port). Each test sets the
 * handler; the server records every request it receives (arrival time from a monotonic clock).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { ApiClient, type ApiClientOptions } from "../../src/client/index.js";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() at arrival, in ms. */
  at: number;
  /** Remote port of the connection, to check keep-alive reuse. */
  remotePort: number | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  seen: Seen[];
  handler: Handler;
  close(): Promise<void>;
}

/** Starts a server; `handler` runs after the request body has been read. */
export async function startServer(handler: Handler = json(200, {})): Promise<TestServer> {
  const state: TestServer = { url: "", seen: [], handler, close: async () => {} };
  const server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at,
        remotePort: req.socket.remotePort,
      };
      state.seen.push(seen);
      state.handler(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A handler answering `status` with a JSON body (none for 204) and extra headers. */
export function json(status: number, body?: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => send(res, status, body, headers);
}

/** Writes a JSON response. */
export function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { "content-type": "application/json" } : {}), ...headers });
  res.end(text);
}

/** The reference server's error body. */
export function errorBody(status: number, code: string, msg: string, op = "op_test") {
  return { error_code: code, status_code: status, msg, details: { operation_id: op } };
}

/** A handler that answers the listed handlers in turn, repeating the last one. */
export function sequence(...handlers: Handler[]): Handler {
  let i = 0;
  return (req, res, seen) => {
    const h = handlers[Math.min(i, handlers.length - 1)] as Handler;
    i += 1;
    h(req, res, seen);
  };
}

/** A handler that destroys the connection without answering (the client sees a reset or close). */
export const destroySocket: Handler = (req) => {
  req.socket.destroy();
};

/**
 * The servers and clients of one test file, all closed after each test (registers `afterEach`).
 * `setup(opts, path)` starts a server and a client of it (`defaults`, then `opts`, base URL
 * `server.url + path`); `server()` and `client()` start one alone.
 */
export function useHarness(defaults: Omit<ApiClientOptions, "baseUrl">) {
  const servers: TestServer[] = [];
  const clients: ApiClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const server = async (handler?: Handler): Promise<TestServer> => {
    const s = await startServer(handler);
    servers.push(s);
    return s;
  };
  const client = (opts: Partial<ApiClientOptions> & { baseUrl: string }): ApiClient => {
    const c = new ApiClient({ ...defaults, ...opts });
    clients.push(c);
    return c;
  };
  const setup = async (opts: Partial<ApiClientOptions> = {}, path = "") => {
    const s = await server();
    return { server: s, client: client({ ...opts, baseUrl: s.url + path }) };
  };
  return { setup, server, client };
}
