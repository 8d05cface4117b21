/**
 * A TCP proxy in front of the test server that the test controls: it counts every connection, can be
 * taken down (every connection, open or new, is closed at once: the API is unreachable) and brought
 * back up, and can delay the server's answers (to keep a reconcile in flight).
 */
import { createConnection, createServer, type Socket } from "node:net";

export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Connections accepted since start, refused ones included. */
  connections(): number;
  /** Closes every connection and refuses new ones until `up()`. */
  down(): void;
  up(): void;
  /** Stops listening: new connections are refused (ECONNREFUSED), open ones closed, until `listen()`. */
  refuse(): Promise<void>;
  /** Listens again on the same port after `refuse()`. */
  listen(): Promise<void>;
  /** Delay added to every chunk of the server's answers, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://host:port`) on an ephemeral loopback port. */
export async function startProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let count = 0;
  let isDown = false;
  const proxy: TcpProxy = {
    url: "",
    connections: () => count,
    down: () => {
      isDown = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    up: () => {
      isDown = false;
    },
    refuse: async () => {},
    listen: async () => {},
    delayMs: 0,
    close: async () => {},
  };
  const server = createServer((client) => {
    count++;
    if (isDown) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: hostname, port: Number(port) });
    open.add(client);
    open.add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => {
      if (proxy.delayMs > 0) setTimeout(() => client.writable && client.write(chunk), proxy.delayMs);
      else client.write(chunk);
    });
    const end = () => {
      const later = proxy.delayMs > 0 ? proxy.delayMs + 10 : 0;
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      }, later);
    };
    for (const s of [client, upstream]) {
      s.on("close", end);
      s.on("error", end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const ownPort = typeof address === "object" && address ? address.port : 0;
  proxy.refuse = () =>
    new Promise<void>((resolve) => {
      for (const s of open) s.destroy();
      open.clear();
      server.close(() => resolve());
    });
  proxy.listen = () => new Promise<void>((resolve) => server.listen(ownPort, "127.0.0.1", resolve));
  proxy.close = () =>
    new Promise<void>((resolve) => {
      proxy.down();
      if (server.listening) server.close(() => resolve());
      else resolve();
    });
  return proxy;
}
