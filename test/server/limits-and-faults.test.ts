/**
 * Rate limit per API key (429 with Retry-After, not processed) and fault injection (the configured
 * failures, answered before anything is processed; drop closes the connection; reproducible with a
 * seed; debug endpoints exempt; lost processes the request and closes instead of answering) (docs/design.md section 5).
 */
import { afterAll, describe, expect, test } from "vitest";
import { ApiClient, NetworkError } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { caller, errorMessage } from "./http.js";

const servers: TestServer[] = [];
async function start(opts: Parameters<typeof startTestServer>[0]) {
  const s = await startTestServer({ fixtures: false, ...opts });
  servers.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("rate limit", () => {
  test("over N per window: 429 with Retry-After, per key, and the request was not processed", async () => {
    const server = await start({ rateLimit: "3/60s" });
    const admin = caller(server.url, server.token);
    for (let i = 0; i < 3; i++)
      expect((await admin("POST", "/ip_policies", { description: `p${i}` })).status).toBe(201);
    const limited = await admin("POST", "/ip_policies", { description: "one too many" });
    expect(errorMessage(limited, 429)).toContain("3/60s");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Debug endpoints are exempt; they show that only three objects exist.
    const recorded = await admin("GET", "/debug/requests");
    expect(recorded.body.requests.map((r: { status: number }) => r.status)).toEqual([201, 201, 201, 429]);
  });

  test("the window slides: after it, requests pass again", async () => {
    const server = await start({ rateLimit: "2/1s" });
    const admin = caller(server.url, server.token);
    expect((await admin("GET", "/ip_policies")).status).toBe(200);
    expect((await admin("GET", "/ip_policies")).status).toBe(200);
    const limited = await admin("GET", "/ip_policies");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    await new Promise((r) => setTimeout(r, 1100));
    expect((await admin("GET", "/ip_policies")).status).toBe(200);
  });

  test("each key has its own budget", async () => {
    const server = await start({ rateLimit: "2/60s" });
    const admin = caller(server.url, server.token);
    const other = await admin("POST", "/api_keys", {});
    expect((await admin("GET", "/api_keys")).status).toBe(200);
    expect((await admin("GET", "/api_keys")).status).toBe(429);
    expect((await caller(server.url, other.body.token)("GET", "/api_keys")).status).toBe(200);
  });
});

describe("fault injection", () => {
  test("503=1: every API call fails before being processed; debug endpoints do not", async () => {
    const server = await start({ faults: "503=1" });
    const admin = caller(server.url, server.token);
    expect(errorMessage(await admin("POST", "/ip_policies", {}), 503)).toContain("injected");
    expect(errorMessage(await admin("GET", "/ip_policies"), 503)).toContain("injected");
    // Even without credentials: the fault comes first.
    expect((await admin("GET", "/ip_policies", undefined, { authorization: undefined })).status).toBe(503);
    expect((await admin("GET", "/debug/requests")).status).toBe(200);
  });

  test("429 faults carry Retry-After; 500 faults are plain; the shares follow the spec", async () => {
    const server = await start({ faults: "500=0.2,429=0.3,seed=7,retry_after=2" });
    const admin = caller(server.url, server.token);
    const counts: Record<number, number> = {};
    for (let i = 0; i < 400; i++) {
      const res = await admin("GET", "/ip_policies");
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      if (res.status === 429) expect(res.headers.get("retry-after")).toBe("2");
      if (res.status === 500) expect(res.body.msg).toBe("injected fault: internal error");
    }
    expect(Object.keys(counts).sort()).toEqual(["200", "429", "500"]);
    expect(counts[500]).toBeGreaterThan(50);
    expect(counts[500]).toBeLessThan(110);
    expect(counts[429]).toBeGreaterThan(85);
    expect(counts[429]).toBeLessThan(155);
  });

  test("a seed makes the sequence of faults reproducible", async () => {
    const statuses = async () => {
      const server = await start({ faults: "503=0.5,seed=42" });
      const admin = caller(server.url, server.token);
      const out: number[] = [];
      for (let i = 0; i < 30; i++) out.push((await admin("GET", "/ip_policies")).status);
      return out;
    };
    const first = await statuses();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await statuses()).toEqual(first);
  });

  test("injected failures change nothing: objects exist exactly for the 201s", async () => {
    const server = await start({ faults: "500=0.3,503=0.2,429=0.2,seed=3" });
    const admin = caller(server.url, server.token);
    let createdCount = 0;
    for (let i = 0; i < 60; i++) if ((await admin("POST", "/ip_policies", {})).status === 201) createdCount++;
    expect(createdCount).toBeGreaterThan(5);
    expect(createdCount).toBeLessThan(60);
    const client = new ApiClient({
      baseUrl: server.url,
      apiKey: server.token,
      retry: { retries: 20, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 5000 },
    });
    try {
      // The client retries the injected 5xx and 429 (Retry-After 1 s) of its GETs.
      const all = await client.listAll("/ip_policies", "ip_policies");
      expect(all).toHaveLength(createdCount);
    } finally {
      await client.close();
    }
  });

  test("drop=1: the connection closes without an answer, recorded with status 0", async () => {
    const server = await start({ faults: "drop=1" });
    const client = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 0 } });
    try {
      await expect(client.get("/ip_policies")).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await client.close();
    }
    expect(server.requests).toEqual([{ method: "GET", path: "/ip_policies", status: 0 }]);
  });

  test("lost=1: the request is processed, then the connection closes without the answer", async () => {
    const server = await start({ faults: "lost=1" });
    const client = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 0 } });
    try {
      const err = await client.post("/ip_policies", { description: "lost" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).mayHaveBeenCreated).toBe(true);
    } finally {
      await client.close();
    }
    // Processed: recorded with the status it would have answered (a drop is recorded with 0).
    expect(server.requests).toEqual([{ method: "POST", path: "/ip_policies", status: 201 }]);
  });
});
