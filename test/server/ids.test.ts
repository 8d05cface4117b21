/** Identifiers the server makes (src/server/ids.ts): their form, and characters drawn without bias. */
import { describe, expect, it } from "vitest";
import {
  isWellFormedId,
  newId,
  newOperationId,
  randomAlphanumeric,
  toTimestamp,
} from "../../src/server/ids.js";

describe("server identifiers", () => {
  it("are a prefix and 27 (ids) or 20 (operation ids) alphanumerics, never the same twice", () => {
    const ids = Array.from({ length: 2000 }, () => newId("ak_"));
    for (const id of ids) expect(id).toMatch(/^ak_[0-9A-Za-z]{27}$/);
    expect(isWellFormedId(ids[0] ?? "", "ak_")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newOperationId()).toMatch(/^op_[0-9A-Za-z]{20}$/);
  });

  it("draw every one of the 62 characters equally often (no modulo bias)", () => {
    // 620,000 characters: 10,000 expected of each, standard deviation about 100. A byte taken modulo
    // 62 would give the first 8 characters 25 % more (12,500): far outside the 600 allowed here.
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      for (const c of randomAlphanumeric(31)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    for (const [c, n] of counts)
      expect({ c, n, off: Math.abs(n - 10_000) < 600 }).toEqual({ c, n, off: true });
  });
});

describe("timestamps", () => {
  it("are RFC 3339 UTC to the second, milliseconds dropped", () => {
    expect(toTimestamp(new Date("2025-01-31T12:00:00.999Z"))).toBe("2025-01-31T12:00:00Z");
    expect(toTimestamp(new Date("1970-01-01T00:00:00.000Z"))).toBe("1970-01-01T00:00:00Z");
    expect(toTimestamp(new Date("+010000-01-01T00:00:00.123Z"))).toBe("+010000-01-01T00:00:00Z");
  });
});
