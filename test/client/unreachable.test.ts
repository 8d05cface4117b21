/**
 * An unreachable API (connection refused) costs one request per attempt of the caller: once a call
 * found no server, the next call goes out alone and the calls arriving meanwhile wait for its answer,
 * failing without being sent while the API is still down; with `retryUnreachable: false` nothing is
 * retried inside the client. When the server is back, calls flow again.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient, NetworkError, type ResponseEvent } from "../../src/client/index.js";

let port: number;
let server: Server | undefined;
beforeAll(async () => {
  // A port nothing listens on (yet): connections are refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

it("sends one request per attempt while the API is unreachable, and all calls once it is back", async () => {
  const attempts: ResponseEvent[] = [];
  const api = new ApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: "k",
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    retryUnreachable: false,
    onResponse: (e) => attempts.push(e),
  });
  try {
    const first = await api.get("/a").catch((e: unknown) => e);
    expect(first).toBeInstanceOf(NetworkError);
    expect((first as NetworkError).unreachable).toBe(true);
    expect((first as Error).message).toMatch(/failed after 1 attempt: connection refused \(ECONNREFUSED\)/);
    expect(attempts).toHaveLength(1);

    // Ten calls at once while it is still down: one goes out, the others fail unsent.
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => api.get(`/b${i}`)));
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof NetworkError)).toBe(true);
    const reasons = results.map((r) => (r.status === "rejected" ? String(r.reason.message) : ""));
    expect(reasons.filter((m) => m.includes("not sent"))).toHaveLength(9);
    expect(attempts).toHaveLength(2);

    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    await new Promise<void>((r) => server?.listen(port, "127.0.0.1", r));
    const back = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => api.get(`/c${i}`)));
    expect(back.every((r) => r.status === "fulfilled")).toBe(true);
    expect(attempts).toHaveLength(7);
  } finally {
    await api.close();
  }
});

it("retries an unreachable API inside a call by default (one call at a time)", async () => {
  const attempts: ResponseEvent[] = [];
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const freePort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const api = new ApiClient({
    baseUrl: `http://127.0.0.1:${freePort}`,
    apiKey: "k",
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    onResponse: (e) => attempts.push(e),
  });
  try {
    const err = await api.get("/a").catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/failed after 3 attempts: connection refused/);
    expect(attempts).toHaveLength(3);
  } finally {
    await api.close();
  }
});
