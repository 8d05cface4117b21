import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestOf, sha256 } from "../../src/engine/fingerprint.js";

describe("sha256", () => {
  it("is the hex SHA-256 of the UTF-8 bytes (the state's digests depend on it)", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const text of ["", "ü ☕ 𝄞", "x".repeat(10_000)])
      expect(sha256(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex"));
    expect(digestOf("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
