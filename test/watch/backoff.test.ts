import { describe, expect, it } from "vitest";
import { Backoff, backoffDelay, retryAfterOf } from "../../src/watch/backoff.js";

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
});
