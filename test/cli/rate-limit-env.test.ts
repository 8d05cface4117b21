/**
 * `TGW_RATE_LIMIT` sets the client's rate limit (docs/plan.md > Apply): a key with another limit than
 * production's, or `none`; anything else is a usage error naming the variable.
 */
import { describe, expect, it } from "vitest";
import { rateLimitOption } from "../../src/cli/target.js";

describe("TGW_RATE_LIMIT", () => {
  it("keeps the client's default when unset or empty", () => {
    expect(rateLimitOption(undefined)).toEqual({});
    expect(rateLimitOption(" ")).toEqual({});
  });

  it("reads N/WINDOW and none", () => {
    expect(rateLimitOption("600/60s")).toEqual({ rateLimit: { requests: 600, windowMs: 60_000 } });
    expect(rateLimitOption("10/500ms")).toEqual({ rateLimit: { requests: 10, windowMs: 500 } });
    expect(rateLimitOption("none")).toEqual({ rateLimit: false });
  });

  it("refuses anything else, naming the variable", () => {
    expect(() => rateLimitOption("fast")).toThrow(/TGW_RATE_LIMIT="fast": expected N\/WINDOW/);
    expect(() => rateLimitOption("0/60s")).toThrow(/TGW_RATE_LIMIT/);
  });
});
