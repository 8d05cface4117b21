/**
 * A forwarding HTTP proxy in front of a test server that can hold requests: a test stops a client at
 * an exact point of its work (after its tenth POST, say) instead of racing it with a timer. Held
 * requests wait until `release()`; a held request whose client goes away is dropped, never forwarded
 * (it leaves `held()`).
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A running proxy. */
export interface HoldingProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests forwarded and answered so far, by method. */
  answered(method: string): number;
  /** Requests waiting now. */
  held(): number;
  /** From now on, holds every `method` request after the `after`-th forwarded one. */
  holdAfter(method: string, after: number): void;
  /** Forwards what is held and holds nothing more. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://host:port`) on an ephemeral port. */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const sent = new Map<string, number>();
  const answered = new Map<string, number>();
  const add = (m: Map<string, number>, method: string) => m.set(method, (m.get(method) ?? 0) + 1);
  let rule: { method: string; after: number } | undefined;
  let waiting: (() => void)[] = [];
  const mustHold = (method: string) => rule?.method === method && (sent.get(method) ?? 0) >= rule.after;

  // The server's links (`uri`, `next_page_uri`) name its own origin: rewritten to the proxy's.
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    add(sent, req.method ?? "");
    const out = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "accept-encoding": "identity" },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const bytes = Buffer.from(Buffer.concat(chunks).toString("utf8").replaceAll(origin, url));
          const headers = { ...answer.headers, "content-length": String(bytes.length) };
          res.writeHead(answer.statusCode ?? 502, headers).end(bytes);
          add(answered, req.method ?? "");
        });
      },
    );
    out.on("error", () => res.destroy());
    out.end(body);
  };

  const to = new URL(target);
  const origin = to.origin;
  let url = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const go = () => {
        if (req.socket.destroyed) return;
        forward(req, res, Buffer.concat(chunks));
      };
      if (!mustHold(req.method ?? "")) return go();
      waiting.push(go);
      res.on("close", () => {
        waiting = waiting.filter((f) => f !== go);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    answered: (method) => answered.get(method) ?? 0,
    held: () => waiting.length,
    holdAfter: (method, after) => {
      rule = { method, after };
    },
    release: () => {
      rule = undefined;
      const go = waiting;
      waiting = [];
      for (const f of go) f();
    },
    close: () =>
      new Promise<void>((resolve) => {
        waiting = [];
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
