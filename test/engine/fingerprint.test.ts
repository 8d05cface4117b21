import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestOf, normalizePem, sha256 } from "../../src/engine/fingerprint.js";
import { makePlan } from "../../src/engine/plan.js";
import { buildRecord } from "../../src/engine/records.js";
import { getKind } from "../../src/model/index.js";
import { desired, live, marked, res, state } from "./builders.js";

describe("sha256", () => {
  it("is the hex SHA-256 of the UTF-8 bytes (the state's digests depend on it)", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const text of ["", "ü ☕ 𝄞", "x".repeat(10_000)])
      expect(sha256(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex"));
    expect(digestOf("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("PEM text of write-only fields (issue 27, defect 6a)", () => {
  const key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";

  it("normalises line breaks and surrounding blanks; a usual PEM file is unchanged", () => {
    expect(normalizePem(key)).toBe(key);
    expect(normalizePem(`\n${key.replaceAll("\n", "\r\n")}\n\n`)).toBe(key);
    expect(normalizePem(key.replace("AAAA", "AAAA  "))).toBe(key);
  });

  it("tgw plans no replace of a certificate whose key only gained a newline, nor against an older digest", () => {
    const resource = (pem: string) =>
      res("tls_certificates.app", { certificate_pem: "CERT", private_key_pem: pem });
    const object = { kind: "tls_certificate", id: "cert_1", certificate_pem: "CERT", description: "" };
    const planOf = (pem: string, record: ReturnType<typeof buildRecord>) =>
      makePlan({
        desired: desired([resource(pem)]),
        live: live([{ ...object, metadata: marked("tls_certificates.app") }]),
        state: state([record]),
      }).changes[0];
    const applied = buildRecord(
      getKind("tls_certificate"),
      resource(key),
      "cert_1",
      resource(key).fields,
      new Date(),
    );
    expect(planOf(`${key}\n`, applied)?.action).toBe("no-op");
    // A record written before PEM text was normalised kept the digest of the raw text.
    const raw = key.trim();
    const older = { ...applied, writeOnly: { private_key_pem: sha256(raw) } };
    expect(planOf(raw, older)?.action).toBe("no-op");
    expect(planOf(key.replace("AAAA", "BBBB"), applied)).toMatchObject({
      action: "replace",
      replaceFields: ["private_key_pem"],
    });
  });
});
