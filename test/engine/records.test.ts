/**
 * `sameRecord` (src/engine/records.ts) against its model: two records are the same when their
 * canonical JSON is, the time of the last apply aside. Records generated with every optional part
 * (write-only digests, references, a token delivery), keys in any order, some set to undefined.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameRecord } from "../../src/engine/records.js";
import { canonicalJson } from "../../src/model/index.js";
import type { StateRecord } from "../../src/state/store.js";

const hex = fc.constantFrom("a", "b");
const record: fc.Arbitrary<StateRecord> = fc.record(
  {
    address: fc.constantFrom("api_keys.a", "api_keys.b"),
    kind: fc.constantFrom("api_key", "tls_certificate"),
    id: fc.constantFrom("ak_1", "ak_2"),
    fingerprint: hex,
    writeOnly: fc.option(fc.dictionary(fc.constantFrom("private_key_pem", "certificate_pem"), hex), {
      nil: undefined,
    }),
    dependsOn: fc.option(fc.subarray(["tls_certificates.a", "ip_policies.b"]), { nil: undefined }),
    tokenDelivered: fc.option(
      fc.record(
        { to: fc.constantFrom("file", "command"), host: fc.constantFrom("h1", "h2"), digest: hex },
        {
          requiredKeys: ["to"],
        },
      ),
      { nil: undefined },
    ),
    appliedAt: fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"),
  },
  { requiredKeys: ["address", "kind", "id", "fingerprint", "appliedAt"] },
) as fc.Arbitrary<StateRecord>;

/** The same record with its keys in reverse order (and so every nested object's). */
function reordered<T>(value: T): T {
  if (Array.isArray(value) || typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reordered(v)]),
  ) as T;
}

const model = (a: StateRecord, b: StateRecord) => {
  const { appliedAt: _a, ...x } = a;
  const { appliedAt: _b, ...y } = b;
  return canonicalJson(x) === canonicalJson(y);
};

describe("sameRecord", () => {
  it("agrees with the canonical JSON of the records, the time of the last apply aside", () => {
    fc.assert(
      fc.property(record, record, (a, b) => {
        expect(sameRecord(a, b)).toBe(model(a, b));
        expect(sameRecord(a, reordered(a))).toBe(true);
        expect(sameRecord(a, { ...a, appliedAt: "2027-01-01T00:00:00.000Z" })).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("is false without a record to compare with", () => {
    fc.assert(fc.property(record, (b) => !sameRecord(undefined, b)));
  });
});
