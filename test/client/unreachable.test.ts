/**
 * An unreachable API (connection refused) costs one request per attempt of the caller: once a call
 * found no server, the next call goes out alone and the calls arriving meanwhile wait for its answer,
 * failing without being sent while the API is still down; with `probeOutages` a call retries once at
 * most, as that probe, and nothing is retried once a probe found the API still down. When the server
 * is back, calls flow again. Under `probeOutages`, resets and 502/503/504 answers are outages too.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, NetworkError, type ResponseEvent } from "../../src/client/index.js";
import { freePort } from "../helpers/ports.js";

let port: number;
let server: Server | undefined;
beforeAll(async () => {
  // A port nothing listens on (yet): connections are refused.
  port = await freePort();
});
afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

it("sends one request per attempt while the API is unreachable, and all calls once it is back", async () => {
  const attempts: ResponseEvent[] = [];
  const api = new ApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: "k",
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    probeOutages: true,
    onResponse: (e) => attempts.push(e),
  });
  try {
    const first = await api.get("/a").catch((e: unknown) => e);
    expect(first).toBeInstanceOf(NetworkError);
    expect((first as NetworkError).unreachable).toBe(true);
    // Its one retry is the probe; the probe found the API still down, so it is not retried again.
    expect((first as Error).message).toMatch(/failed after 2 attempts: connection refused \(ECONNREFUSED\)/);
    expect(attempts).toHaveLength(2);

    // Ten calls at once while it is still down: one goes out, the others fail unsent.
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => api.get(`/b${i}`)));
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof NetworkError)).toBe(true);
    const reasons = results.map((r) => (r.status === "rejected" ? String(r.reason.message) : ""));
    expect(reasons.filter((m) => m.includes("not sent"))).toHaveLength(9);
    expect(attempts).toHaveLength(3);

    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    await new Promise<void>((r) => server?.listen(port, "127.0.0.1", r));
    const back = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => api.get(`/c${i}`)));
    expect(back.every((r) => r.status === "fulfilled")).toBe(true);
    expect(attempts).toHaveLength(8);
  } finally {
    await api.close();
  }
});

it("retries an unreachable API inside a call by default (one call at a time)", async () => {
  const attempts: ResponseEvent[] = [];
  const api = new ApiClient({
    baseUrl: `http://127.0.0.1:${await freePort()}`,
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

describe.each([
  ["answers 503", (res: ServerResponse) => res.writeHead(503).end()],
  ["answers 502", (res: ServerResponse) => res.writeHead(502).end()],
  ["resets the connection", (res: ServerResponse) => res.socket?.destroy()],
])("under probeOutages, an API that %s", (_name, failing) => {
  it("costs the calls in flight plus one probe, then one request per attempt, and none once back", async () => {
    let down = true;
    let received = 0;
    const api503 = createServer((_req, res) => {
      received++;
      if (down) failing(res);
      else res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => api503.listen(0, "127.0.0.1", r));
    const api = new ApiClient({
      baseUrl: `http://127.0.0.1:${(api503.address() as AddressInfo).port}`,
      apiKey: "k",
      retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
      rateLimit: false,
      probeOutages: true,
    });
    try {
      // Four reads in flight at once, as a refresh sends them: all fail, with one probe at most between
      // them (none when every answer came before the first retry).
      const burst = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => api.get(`/a${i}`)));
      expect(burst.every((r) => r.status === "rejected")).toBe(true);
      expect(received).toBeGreaterThanOrEqual(4);
      expect(received).toBeLessThanOrEqual(5);
      const afterBurst = received;
      // The next attempt of the caller: one request; the others fail without being sent.
      const next = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => api.get(`/b${i}`)));
      expect(next.map((r) => r.status === "rejected" && String(r.reason.message))).toEqual(
        expect.arrayContaining([expect.stringMatching(/; not sent/)]),
      );
      expect(received).toBe(afterBurst + 1);
      down = false;
      const back = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => api.get(`/c${i}`)));
      expect(back.every((r) => r.status === "fulfilled")).toBe(true);
      expect(received).toBe(afterBurst + 5);
    } finally {
      await api.close();
      api503.closeAllConnections();
      await new Promise<void>((r) => api503.close(() => r()));
    }
  });
});

it("without probeOutages, a 503 is retried by each call as before", async () => {
  let received = 0;
  const api503 = createServer((_req, res) => {
    received++;
    res.writeHead(503).end();
  });
  await new Promise<void>((r) => api503.listen(0, "127.0.0.1", r));
  const api = new ApiClient({
    baseUrl: `http://127.0.0.1:${(api503.address() as AddressInfo).port}`,
    apiKey: "k",
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    rateLimit: false,
  });
  try {
    const burst = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => api.get(`/a${i}`)));
    expect(burst.every((r) => r.status === "rejected" && r.reason.status === 503)).toBe(true);
    expect(received).toBe(12);
  } finally {
    await api.close();
    await new Promise<void>((r) => api503.close(() => r()));
  }
});
