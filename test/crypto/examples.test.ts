/** The committed example key material (examples/keys/, made by scripts/make-example-keys.ts) is sound. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSshPublicKey, privateKeyMatchesCertificate } from "../../src/crypto/index.js";
import { parseCertificateChain } from "../../src/server/certificate-info.js";

const read = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

describe("examples/keys", () => {
  it("app.example.com: rsa chain signed by ca.pem, wildcard and IP SANs, 2026-2036, matching key", () => {
    const chain = read("app.example.com.crt.pem");
    expect(chain.endsWith(read("ca.pem"))).toBe(true);
    expect(parseCertificateChain(chain)).toMatchObject({
      subject_common_name: "app.example.com",
      subject_alternative_names: { dns_names: ["app.example.com", "*.app.example.com"], ips: ["192.0.2.10"] },
      not_before: "2026-01-01T00:00:00Z",
      not_after: "2036-01-01T00:00:00Z",
      private_key_type: "rsa",
      issuer_common_name: "Example Root CA",
    });
    expect(privateKeyMatchesCertificate(read("app.example.com.key.pem"), chain)).toBe(true);
  });

  it("api.example.com: ecdsa chain signed by ca.pem, matching key, not app's key", () => {
    const chain = read("api.example.com.crt.pem");
    expect(parseCertificateChain(chain)).toMatchObject({
      subject_common_name: "api.example.com",
      private_key_type: "ecdsa",
      not_after: "2036-01-01T00:00:00Z",
    });
    expect(privateKeyMatchesCertificate(read("api.example.com.key.pem"), chain)).toBe(true);
    expect(privateKeyMatchesCertificate(read("app.example.com.key.pem"), chain)).toBe(false);
  });

  it("deploy_*.pub: one SSH public key of each type", () => {
    for (const type of ["ed25519", "rsa", "ecdsa"] as const) {
      expect(parseSshPublicKey(read(`deploy_${type}.pub`)).keyType).toBe(type);
    }
  });

  it("idp-metadata.xml: an IdP EntityDescriptor whose signing certificate parses", () => {
    const xml = read("idp-metadata.xml");
    expect(xml).toContain('entityID="https://idp.example.com/saml/metadata"');
    expect(xml).toContain("<md:IDPSSODescriptor");
    const base64 = /<ds:X509Certificate>([A-Za-z0-9+/=]+)<\/ds:X509Certificate>/.exec(xml)?.[1] ?? "";
    const pem = `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
    expect(parseCertificateChain(pem).subject_common_name).toBe("idp.example.com");
  });
});
