import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, PRODUCTION_RATE_LIMIT, resolveRateLimit } from "../../src/client/rate-limit.js";
import { json, useHarness } from "./server.js";

const harness = useHarness({ apiKey: "k" });

/** Largest number of arrivals inside any window of `windowMs` (sliding, anchored on each arrival). */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe("rate limiter", () => {
  it("keeps a burst of 50 calls within 10 per 200 ms", async () => {
    const server = await harness.server(json(200, { ok: true }));
    const client = harness.client({ baseUrl: server.url, rateLimit: { requests: 10, windowMs: 200 } });

    const started = performance.now();
    await Promise.all(Array.from({ length: 50 }, (_, i) => client.get(`/api_keys/ak_${i}`)));
    const elapsed = performance.now() - started;

    expect(server.seen).toHaveLength(50);
    // 5 groups of 10: the last group cannot start before 4 windows have passed.
    expect(elapsed).toBeGreaterThanOrEqual(800);
    // Server-side arrivals, whatever the latency: no 200 ms window saw more than 10 requests.
    expect(
      busiestWindow(
        server.seen.map((s) => s.at),
        200,
      ),
    ).toBeLessThanOrEqual(10);
  });

  it("counts retries against the limit", async () => {
    const server = await harness.server();
    let n = 0;
    server.handler = (_req, res) => {
      n += 1;
      res.writeHead(n === 1 ? 503 : 200, { "content-type": "application/json" });
      res.end("{}");
    };
    const client = harness.client({
      baseUrl: server.url,
      rateLimit: { requests: 1, windowMs: 300 },
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
    });
    const started = performance.now();
    await client.get("/a");
    // First attempt at 0, retry waits for the next window.
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(server.seen).toHaveLength(2);
  });

  it("is off for loopback and the production limit elsewhere by default", () => {
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("127.8.9.10")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("127.example.com")).toBe(false);
    expect(isLoopbackHost("api.example.com")).toBe(false);
    expect(resolveRateLimit(new URL("http://[::1]:4000"), undefined)).toBeUndefined();
    expect(resolveRateLimit(new URL("https://api.example.com"), undefined)).toEqual(PRODUCTION_RATE_LIMIT);
    expect(resolveRateLimit(new URL("https://api.example.com"), false)).toBeUndefined();
    expect(resolveRateLimit(new URL("http://localhost"), { requests: 5, windowMs: 10 })).toEqual({
      requests: 5,
      windowMs: 10,
    });
  });
});

describe("rate-limit budget shared by consecutive processes (src/client/budget.ts)", () => {
  it("a client closed after using its budget leaves it counted for the next client of the same API and key", async () => {
    const server = await harness.server(json(200, { ok: true }));
    const budgetDir = mkdtempSync(join(tmpdir(), "tgw-budget-"));
    const rateLimit = { requests: 5, windowMs: 1_000 };
    const first = harness.client({ baseUrl: server.url, rateLimit, budgetDir });
    await Promise.all(Array.from({ length: 5 }, (_, i) => first.get(`/api_keys/ak_a${i}`)));
    await first.close();
    const [file] = readdirSync(budgetDir);
    expect(file).toMatch(/^[0-9a-f]{32}\.json$/);
    expect(readFileSync(join(budgetDir, file ?? ""), "utf8")).not.toContain("k");
    expect(statSync(join(budgetDir, file ?? "")).mode & 0o777).toBe(0o600);

    const second = harness.client({ baseUrl: server.url, rateLimit, budgetDir });
    await Promise.all(Array.from({ length: 5 }, (_, i) => second.get(`/api_keys/ak_b${i}`)));
    expect(server.seen).toHaveLength(10);
    // As one process would: never more than 5 arrivals in any window, across both clients.
    expect(
      busiestWindow(
        server.seen.map((s) => s.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(5);
    rmSync(budgetDir, { recursive: true, force: true });
  });
});
