/**
 * Live values are computed once per response body (src/engine/normalize.ts): the live fingerprint and
 * the plan read every object, and 10,000 objects made that a measurable part of `tgw plan`.
 */
import { describe, expect, it } from "vitest";
import { liveValues } from "../../src/engine/normalize.js";
import { getKind } from "../../src/model/index.js";

describe("liveValues", () => {
  const kind = getKind("tls_certificate");
  const raw = { id: "cert_1", description: "d", metadata: "", certificate_pem: "pem" };

  it("gives the same values object for the same body", () => {
    const first = liveValues(kind, raw);
    expect(liveValues(kind, raw)).toBe(first);
    expect(liveValues(kind, { ...raw })).not.toBe(first);
    expect(liveValues(kind, { ...raw })).toEqual(first);
  });

  it("computes anew when the state knows a write-only digest", () => {
    const plain = liveValues(kind, raw);
    const withDigest = liveValues(kind, raw, { private_key_pem: "ab".repeat(32) });
    expect(withDigest).not.toBe(plain);
    expect(withDigest.private_key_pem).toMatch(/ab/);
    expect(plain.private_key_pem).toBeUndefined();
  });
});
