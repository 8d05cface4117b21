/**
 * Parse results are kept by text (src/crypto/memo.ts): the same PEM or SSH key in many places of a
 * configuration is parsed once; a failure is not kept, so its message names each field it is in.
 */
import { describe, expect, it } from "vitest";
import {
  leafPublicKey,
  parsePrivateKey,
  parseSshPublicKey,
  privateKeyMatchesCertificate,
} from "../../src/crypto/index.js";
import { createSshKeyPair, createTestCa, createTestCertificate } from "../../src/crypto/testing.js";
import { parseCertificateChain } from "../../src/server/certificate-info.js";

describe("parse results kept by text", () => {
  it("parses one private key text once", async () => {
    const { privateKeyPem } = await createTestCertificate();
    const first = parsePrivateKey(privateKeyPem, "a.private_key_pem");
    expect(parsePrivateKey(privateKeyPem, "b.private_key_pem")).toBe(first);
    expect(parsePrivateKey(`${privateKeyPem}\n`)).not.toBe(first);
  });

  it("parses one SSH public key line once", () => {
    const { publicKey } = createSshKeyPair("ed25519");
    expect(parseSshPublicKey(publicKey)).toBe(parseSshPublicKey(publicKey, "other"));
  });

  it("reads two chains that share their issuer each with its own leaf", async () => {
    // Certificates are kept by their DER bytes (src/crypto/x509.ts): the shared CA is parsed once.
    const ca = await createTestCa();
    const a = await createTestCertificate({ commonName: "a.example.com", issuer: ca });
    const b = await createTestCertificate({ commonName: "b.example.com", issuer: ca });
    expect(parseCertificateChain(a.certificatePem).subject_common_name).toBe("a.example.com");
    expect(parseCertificateChain(b.certificatePem).subject_common_name).toBe("b.example.com");
    expect(privateKeyMatchesCertificate(b.privateKeyPem, b.certificatePem)).toBe(true);
    expect(privateKeyMatchesCertificate(a.privateKeyPem, b.certificatePem)).toBe(false);
    expect(leafPublicKey(a.certificatePem).equals(leafPublicKey(b.certificatePem))).toBe(false);
    // The CA alone is a chain of its own, read from the same kept certificate.
    expect(parseCertificateChain(ca.certificatePem).subject_common_name).not.toBe("a.example.com");
  });

  it("does not keep failures: each names its own field", () => {
    expect(() => parseSshPublicKey("ssh-ed25519 AAAA", "first")).toThrow(/first/);
    expect(() => parseSshPublicKey("ssh-ed25519 AAAA", "second")).toThrow(/second/);
  });
});
