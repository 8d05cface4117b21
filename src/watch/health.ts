/**
 * The health endpoint of `tgw watch` (`--health-port`), for supervisors and orchestrators:
 * - `GET /healthz`: the `WatchStatus` (src/watch/status.ts) as JSON; 200 when the last reconcile
 *   succeeded, 503 otherwise (starting, invalid configuration, failing, stopping). Use it for
 *   readiness and alerting.
 * - `GET /livez`: 200 `{"status":"alive"}` while the process runs its loop. Use it for liveness: a
 *   failing API must not get the watcher restarted in a loop.
 * - `GET /metrics`: Prometheus metrics (src/watch/metrics.ts), when metrics are given.
 * - `GET /`: the status page (./status-html.ts), and `GET /status.json`, its data (./status-page.ts),
 *   when a page is given.
 * - `POST /hooks/git`: a push webhook (`tgw watch --git`), when a hook is given; it must carry the
 *   shared secret (./webhook.ts). Answers 202 when a fetch is queued, 401 without the secret.
 * Anything else: 404; another method: 405. The body never holds a secret: errors are the same
 * one-line messages as the log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isHealthy, type WatchStatus } from "./status.js";
import { STATUS_PAGE_HEADERS, STATUS_PAGE_HTML } from "./status-html.js";

/** Most bytes read from a webhook body (GitHub caps its payloads at 25 MB; ours need none of it). */
const MAX_HOOK_BYTES = 1024 * 1024;

/** A running health server. */
export interface HealthServer {
  /** `http://host:port` (the port the OS chose when 0 was asked). */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the health endpoints on `host:port` (port 0: any free port).
 * @param status read on each request.
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be bound.
 */
export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => handleRequest(opts, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Options of `startHealthServer`. */
export interface HealthServerOptions {
  host: string;
  port: number;
  status: () => WatchStatus;
  /** Serves `GET /status.json` with what it returns, and the page that shows it at `GET /`. */
  page?: () => unknown;
  /** Serves `GET /metrics` with what it returns. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /**
   * Serves `POST /hooks/git`: called with the raw body and headers; returns the status code and a
   * message (202 queued, 401 bad secret...).
   */
  gitHook?: (
    body: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ) => { code: number; message: string };
}

/** Sends a JSON answer (no body to HEAD). */
type Send = (code: number, body: unknown, headers?: Record<string, string>) => void;

/**
 * Answers one request: `/metrics`, `/hooks/git`, the status page and its data, `/livez`, `/healthz`
 * (503 when unhealthy), else 404.
 */
function handleRequest(opts: HealthServerOptions, req: IncomingMessage, res: ServerResponse) {
  const path = (req.url ?? "/").split("?")[0];
  const send: Send = (code, body, headers = {}) => {
    const text = `${JSON.stringify(body)}\n`;
    res.writeHead(code, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    });
    res.end(req.method === "HEAD" ? undefined : text);
  };
  if (path === "/hooks/git" && opts.gitHook) return serveGitHook(opts, req, send);
  const known = ["/healthz", "/livez"];
  if (opts.metrics) known.push("/metrics");
  if (opts.page) known.push("/", "/status.json");
  if (path === undefined || !known.includes(path)) return send(404, { error: `no such endpoint: ${path}` });
  if (req.method !== "GET" && req.method !== "HEAD") {
    return send(405, { error: `method ${req.method} not allowed` }, { allow: "GET, HEAD" });
  }
  if (path === "/metrics") return serveMetrics(opts, req, res, send);
  if (path === "/") {
    res.writeHead(200, STATUS_PAGE_HEADERS);
    return res.end(req.method === "HEAD" ? undefined : STATUS_PAGE_HTML);
  }
  if (path === "/status.json") return send(200, opts.page?.());
  if (path === "/livez") return send(200, { status: "alive" });
  const status = opts.status();
  return send(isHealthy(status) ? 200 : 503, status);
}

/** `GET /metrics`: what `opts.metrics` renders (500 when it fails). */
function serveMetrics(opts: HealthServerOptions, req: IncomingMessage, res: ServerResponse, send: Send) {
  opts.metrics?.().then(
    ({ contentType, body }) => {
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    },
    (err: Error) => send(500, { error: `metrics: ${err.message}` }),
  );
}

/** `POST /hooks/git`: reads the body (413 past MAX_HOOK_BYTES) and answers what `gitHook` returns. */
function serveGitHook(opts: HealthServerOptions, req: IncomingMessage, send: Send) {
  if (req.method !== "POST")
    return send(405, { error: `method ${req.method} not allowed` }, { allow: "POST" });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (size <= MAX_HOOK_BYTES) chunks.push(c);
  });
  req.on("end", () => {
    if (size > MAX_HOOK_BYTES) return send(413, { error: "webhook body too large" });
    const { code, message } = opts.gitHook?.(Buffer.concat(chunks), req.headers) ?? {
      code: 404,
      message: "no hook",
    };
    return send(code, code < 300 ? { status: message } : { error: message });
  });
}
