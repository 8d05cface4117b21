/**
 * Parse results are kept by text (src/crypto/memo.ts): the same PEM or SSH key in many places of a
 * configuration is parsed once; a failure is not kept, so its message names each field it is in.
 */
import { describe, expect, it } from "vitest";
import { parsePrivateKey, parseSshPublicKey } from "../../src/crypto/index.js";
import { createSshKeyPair, createTestCertificate } from "../../src/crypto/testing.js";

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

  it("does not keep failures: each names its own field", () => {
    expect(() => parseSshPublicKey("ssh-ed25519 AAAA", "first")).toThrow(/first/);
    expect(() => parseSshPublicKey("ssh-ed25519 AAAA", "second")).toThrow(/second/);
  });
});
