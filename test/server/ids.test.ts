/** Identifiers the server makes (src/server/ids.ts): their form, and characters drawn without bias. */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  isWellFormedId,
  newId,
  newOperationId,
  nowTimestamp,
  randomAlphanumeric,
  sameDigest,
  tokenDigest,
  tokenHash,
  toTimestamp,
} from "../../src/server/ids.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("server identifiers", () => {
  it("are a prefix and 27 (ids) or 20 (operation ids) alphanumerics, never the same twice", () => {
    const ids = Array.from({ length: 2000 }, () => newId("ak_"));
    for (const id of ids) expect(id).toMatch(/^ak_[0-9A-Za-z]{27}$/);
    expect(isWellFormedId(ids[0] ?? "", "ak_")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newOperationId()).toMatch(/^op_[0-9A-Za-z]{20}$/);
  });

  it("begin with their second, so that later ids sort after earlier ones, and are random after it", () => {
    vi.useFakeTimers();
    const at = (iso: string) => {
      vi.setSystemTime(new Date(iso));
      return newId("ipp_").slice("ipp_".length);
    };
    const ids = [
      at("1970-01-01T00:00:00.000Z"),
      at("2026-11-25T08:00:00.000Z"),
      at("2026-11-25T08:00:00.999Z"),
      at("2026-11-25T08:00:01.000Z"),
      at("2026-11-25T08:01:01.000Z"),
      at("2100-01-01T00:00:00.000Z"),
    ];
    expect(ids[0]?.slice(0, 6)).toBe("000000");
    // One second, one time part; the 21 characters after it differ.
    expect(ids[1]?.slice(0, 6)).toBe(ids[2]?.slice(0, 6));
    expect(ids[1]?.slice(6)).not.toBe(ids[2]?.slice(6));
    // The seconds since 1970 in base 62, most significant first.
    expect(ids[3]?.slice(0, 6)).toBe(base62(Date.UTC(2026, 10, 25, 8, 0, 1) / 1000));
    const times = ids.map((id) => id.slice(0, 6));
    expect(times.slice(2)).toEqual([...times.slice(2)].sort());
    expect(new Set(times.slice(2)).size).toBe(4);
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

/** The reference: `n` in base 62 over 0-9A-Za-z, 6 characters. */
function base62(n: number): string {
  const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let out = "";
  for (let i = 0, m = n; i < 6; i++, m = Math.floor(m / 62)) out = digits[m % 62] + out;
  return out;
}

describe("timestamps", () => {
  it("of now follow the clock across seconds (one text per second is kept)", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2026-11-25T08:00:00.100Z"));
    expect(nowTimestamp()).toBe("2026-11-25T08:00:00Z");
    vi.setSystemTime(new Date("2026-11-25T08:00:00.900Z"));
    expect(nowTimestamp()).toBe("2026-11-25T08:00:00Z");
    vi.setSystemTime(new Date("2026-11-25T08:00:01.000Z"));
    expect(nowTimestamp()).toBe("2026-11-25T08:00:01Z");
    vi.setSystemTime(new Date("2025-01-31T12:00:00.000Z"));
    expect(nowTimestamp()).toBe("2025-01-31T12:00:00Z");
  });

  it("are RFC 3339 UTC to the second, milliseconds dropped", () => {
    expect(toTimestamp(new Date("2025-01-31T12:00:00.999Z"))).toBe("2025-01-31T12:00:00Z");
    expect(toTimestamp(new Date("1970-01-01T00:00:00.000Z"))).toBe("1970-01-01T00:00:00Z");
    expect(toTimestamp(new Date("+010000-01-01T00:00:00.123Z"))).toBe("+010000-01-01T00:00:00Z");
  });
});

describe("token digests", () => {
  it("are the token's SHA-256 in base64, equal only to the same digest", () => {
    const digest = tokenDigest("tgw_abc");
    // sha256("tgw_abc"), as stored (tokenHash) and as `printf tgw_abc | sha256sum` gives it.
    expect(digest).toBe(tokenHash("tgw_abc").toString("base64"));
    expect(Buffer.from(digest, "base64").toString("hex")).toBe(
      createHash("sha256").update("tgw_abc").digest("hex"),
    );
    expect(sameDigest(digest, tokenDigest("tgw_abc"))).toBe(true);
    const other = tokenDigest("tgw_abd");
    expect(sameDigest(digest, other)).toBe(false);
    // One character apart, first or last; a prefix.
    for (const i of [0, digest.length - 1]) {
      const changed = `${digest.slice(0, i)}${digest[i] === "A" ? "B" : "A"}${digest.slice(i + 1)}`;
      expect(sameDigest(digest, changed)).toBe(false);
    }
    expect(sameDigest(digest, digest.slice(0, -1))).toBe(false);
  });
});
