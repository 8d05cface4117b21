import { describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/index.js";
import { Backoff, backoffDelay, retryAfterOf } from "../../src/watch/backoff.js";
import { startTestServer } from "../helpers/server.js";

const opts = { initialMs: 1_000, maxMs: 8_000 };

describe("backoff between failed reconciles", () => {
  it("doubles from initialMs, with the wait in [d/2, d] whatever the random source", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, opts, undefined, () => 0))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, opts, undefined, () => 0.999999))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
  });

  it("is capped at maxMs, even after very many failures (no overflow)", () => {
    for (const n of [5, 10, 100, 10_000]) {
      const d = backoffDelay(n, opts);
      expect(d).toBeGreaterThanOrEqual(4_000);
      expect(d).toBeLessThanOrEqual(8_000);
    }
  });

  it("never waits less than the API's Retry-After, which is not capped", () => {
    expect(backoffDelay(1, opts, 3_000, () => 0)).toBe(3_000);
    expect(backoffDelay(1, opts, 60_000, () => 0)).toBe(60_000);
    expect(backoffDelay(3, opts, 100, () => 1)).toBe(4_000);
  });

  it("reads retryAfterMs from an error or its cause", () => {
    expect(retryAfterOf(Object.assign(new Error("429"), { retryAfterMs: 2_000 }))).toBe(2_000);
    expect(retryAfterOf(new Error("x", { cause: { retryAfterMs: 5 } }))).toBe(5);
    expect(retryAfterOf(new Error("503"))).toBeUndefined();
    expect(retryAfterOf(Object.assign(new Error("bad"), { retryAfterMs: -1 }))).toBeUndefined();
  });

  it("counts consecutive failures and starts over after a success", () => {
    const b = new Backoff(opts, () => 0);
    expect([b.fail(), b.fail(), b.fail()]).toEqual([500, 1000, 2000]);
    expect(b.failures).toBe(3);
    b.succeed();
    expect(b.failures).toBe(0);
    expect(b.fail()).toBe(500);
  });

  it("rejects settings that would make a tight loop", () => {
    expect(() => new Backoff({ initialMs: 0, maxMs: 10 })).toThrow(RangeError);
    expect(() => new Backoff({ initialMs: 100, maxMs: 10 })).toThrow(RangeError);
  });

  it("waits at least the Retry-After of a 429 the API client gave up on (real server, rate limited)", async () => {
    const server = await startTestServer({ rateLimit: "1/30s" });
    const api = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 0 } });
    try {
      await api.get("/api_keys");
      const err = await api.get("/api_keys").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(429);
      const asked = retryAfterOf(err) ?? 0;
      expect(asked).toBeGreaterThan(20_000);
      expect(asked).toBeLessThanOrEqual(30_000);
      // The first failure would wait about 1 s; the API asked for more, so that is what it waits.
      expect(new Backoff(opts, () => 0).fail(err)).toBe(asked);
    } finally {
      await api.close();
      await server.close();
    }
  });
});
