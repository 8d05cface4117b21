/**
 * A TCP proxy that adds network latency, for benchmarks of a remote API (issue 30: `bench/plan.ts
 * --rtt 50`): every chunk is delivered half a round trip later in each direction, in order, and a new
 * connection reaches the server one round trip after it was opened (its handshake). Bandwidth is not
 * limited. Loopback only.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running proxy. */
export interface LatencyProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /**
   * Sets the round trip (ms; 0: none, chunks relayed at once) of connections opened and chunks sent
   * from now on. Call it between runs: a chunk sent after a shorter setting can overtake one before it.
   */
  setRtt(rttMs: number): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on `port` (0: a free one) to `127.0.0.1:targetPort` with `rttMs` of round trip.
 * @throws Error when the port cannot be bound
 */
export async function startLatencyProxy(targetPort: number, rttMs: number, port = 0): Promise<LatencyProxy> {
  let rtt = rttMs;
  const sockets = new Set<Socket>();
  const later = (f: () => void) => (rtt === 0 ? f() : setTimeout(f, rtt / 2));
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const relay = (from: Socket, to: Socket) => {
    from.on("data", (chunk) => later(() => to.write(chunk)));
    from.on("end", () => later(() => to.end()));
  };
  const server = createServer((client) => {
    client.pause();
    track(client);
    // The handshake: the server sees the connection a round trip after the client opened it.
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = connect(targetPort, "127.0.0.1", () => {
        relay(client, upstream);
        relay(upstream, client);
        client.resume();
      });
      track(upstream);
      const fail = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", fail);
      upstream.on("error", fail);
    }, rtt);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    setRtt: (ms) => {
      rtt = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
