/**
 * Real crypto in the server (issue 3): a TLS certificate made with @peculiar/x509 (src/crypto test
 * helpers) or with openssl round-trips every parsed field; SSH keys of the three types give their
 * `key_type`; a host certificate is a real OpenSSH certificate signed by the SSH CA, checked with
 * `ssh-keygen -L` (skipped, saying so, when ssh-keygen is absent).
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSshKeyPair, createTestCertificate } from "../../src/crypto/testing.js";
import { hasOpenssl, hasSshKeygen, needsOpenssl, needsSshKeygen, run, tempDir } from "../crypto/tools.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Caller, caller, responseProblems } from "./http.js";

let server: TestServer;
let call: Caller;
const tmp = tempDir();

beforeAll(async () => {
  server = await startTestServer();
  call = caller(server.url, server.token);
});
afterAll(async () => {
  await server.close();
  tmp.remove();
});

describe("TLS certificates", () => {
  test("every field is parsed from the leaf, and the private key is never returned", async () => {
    const notBefore = new Date("2026-02-03T04:05:06Z");
    const cert = await createTestCertificate({
      commonName: "shop.example.com",
      organization: "Example Inc",
      organizationalUnit: "Web",
      locality: "Paris",
      province: "Ile-de-France",
      country: "FR",
      dnsNames: ["shop.example.com", "*.shop.example.com"],
      ips: ["192.0.2.7", "2001:db8::1"],
      notBefore,
      notAfter: new Date("2027-02-03T04:05:06Z"),
      keyType: "ed25519",
      keyUsages: ["digital_signature"],
      extendedKeyUsages: ["server_auth", "client_auth"],
      serialNumber: "0a1b2c3d",
    });
    const created = await call("POST", "/tls_certificates", {
      description: "shop",
      certificate_pem: cert.certificatePem,
      private_key_pem: cert.privateKeyPem,
    });
    expect(created.status, created.text).toBe(201);
    expect(responseProblems("tls_certificate", created.body)).toEqual([]);
    expect(created.body).toMatchObject({
      description: "shop",
      certificate_pem: cert.certificatePem,
      subject_common_name: "shop.example.com",
      subject_alternative_names: {
        dns_names: ["shop.example.com", "*.shop.example.com"],
        ips: ["192.0.2.7", "2001:db8::1"],
      },
      issued_at: null,
      not_before: "2026-02-03T04:05:06Z",
      not_after: "2027-02-03T04:05:06Z",
      key_usages: ["digital_signature"],
      extended_key_usages: ["server_auth", "client_auth"],
      private_key_type: "ed25519",
      issuer_common_name: "tgw test CA",
      serial_number: "0a1b2c3d",
      subject_organization: "Example Inc",
      subject_organizational_unit: "Web",
      subject_locality: "Paris",
      subject_province: "Ile-de-France",
      subject_country: "FR",
    });
    expect(created.text).not.toContain("PRIVATE KEY");
    const got = await call("GET", created.body.uri);
    expect(got.body).toEqual(created.body);
  });

  test(`a certificate made by openssl round-trips${needsOpenssl}`, async ({ skip }) => {
    if (!hasOpenssl) skip();
    const keyFile = tmp.path("rsa.key");
    const certFile = tmp.path("rsa.crt");
    run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyFile]);
    run("openssl", [
      "req",
      "-x509",
      "-new",
      "-key",
      keyFile,
      "-out",
      certFile,
      "-days",
      "30",
      "-set_serial",
      "0x01F4",
      "-subj",
      "/C=DE/ST=Berlin/L=Berlin/O=Beispiel GmbH/CN=beispiel.example.com",
      "-addext",
      "subjectAltName=DNS:beispiel.example.com,IP:198.51.100.4",
      "-addext",
      "keyUsage=critical,digitalSignature,keyEncipherment",
      "-addext",
      "extendedKeyUsage=serverAuth",
    ]);
    const pem = run("openssl", ["x509", "-in", certFile]);
    const created = await call("POST", "/tls_certificates", {
      certificate_pem: pem,
      private_key_pem: run("cat", [keyFile]),
    });
    expect(created.status, created.text).toBe(201);
    const dates = run("openssl", ["x509", "-in", certFile, "-noout", "-startdate", "-enddate"]);
    const date = (label: string) =>
      new Date(`${new RegExp(`${label}=(.*)`).exec(dates)?.[1]}`).toISOString().replace(".000Z", "Z");
    expect(created.body).toMatchObject({
      subject_common_name: "beispiel.example.com",
      issuer_common_name: "beispiel.example.com",
      subject_alternative_names: { dns_names: ["beispiel.example.com"], ips: ["198.51.100.4"] },
      key_usages: ["digital_signature", "key_encipherment"],
      extended_key_usages: ["server_auth"],
      private_key_type: "rsa",
      serial_number: "01f4",
      subject_organization: "Beispiel GmbH",
      subject_organizational_unit: "",
      subject_locality: "Berlin",
      subject_province: "Berlin",
      subject_country: "DE",
      not_before: date("notBefore"),
      not_after: date("notAfter"),
    });
  });
});

describe("SSH keys", () => {
  for (const type of ["ed25519", "rsa", "ecdsa"] as const) {
    test(`${type}: key_type derived for credentials' keys and host certificates`, async () => {
      const pair = createSshKeyPair(type);
      const credential = await call("POST", "/ssh_credentials", { public_key: `${pair.publicKey}\n` });
      expect(credential.status, credential.text).toBe(201);
      expect(credential.body.public_key).toBe(pair.publicKey);
      const certificate = await call("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: pair.publicKey,
      });
      expect(certificate.status, certificate.text).toBe(201);
      expect(certificate.body.key_type).toBe(type);
      expect(certificate.body.certificate).toMatch(
        type === "ecdsa"
          ? /^ecdsa-sha2-nistp256-cert-v01@openssh.com /
          : new RegExp(`^ssh-${type}-cert-v01@openssh.com `),
      );
    });
  }

  test("validity defaults: from now to one year after creation", async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const created = await call("POST", "/ssh_host_certificates", {
      ssh_certificate_authority_id: "sshca_example01",
      public_key: createSshKeyPair("ed25519").publicKey,
    });
    const after = Date.now();
    const from = Date.parse(created.body.valid_after);
    const until = Date.parse(created.body.valid_until);
    expect(from).toBeGreaterThanOrEqual(before);
    expect(from).toBeLessThanOrEqual(after);
    expect(until - from).toBeGreaterThanOrEqual(365 * 86_400_000 - 1000);
    expect(until - from).toBeLessThanOrEqual(365 * 86_400_000 + 1000);
    expect(created.body.principals).toEqual([]);
  });
});

describe.skipIf(!hasSshKeygen)(`host certificates read by ssh-keygen -L${needsSshKeygen}`, () => {
  test("principals, validity window, host type, and the CA that signed it", async () => {
    const created = await call("POST", "/ssh_host_certificates", {
      ssh_certificate_authority_id: "sshca_example01",
      public_key: createSshKeyPair("ed25519").publicKey,
      principals: ["web-1.example.com", "192.0.2.10"],
      valid_after: "2026-03-01T00:00:00Z",
      valid_until: "2027-03-01T12:30:00Z",
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      valid_after: "2026-03-01T00:00:00Z",
      valid_until: "2027-03-01T12:30:00Z",
    });
    const file = tmp.path("host-cert.pub");
    writeFileSync(file, `${created.body.certificate}\n`);
    const shown = run("ssh-keygen", ["-L", "-f", file]);
    expect(shown).toContain("Type: ssh-ed25519-cert-v01@openssh.com host certificate");
    expect(shown).toMatch(/Valid: from 2026-03-01T00:00:00 to 2027-03-01T12:30:00/);
    expect(shown).toMatch(/Principals:\s*\n\s*web-1\.example\.com\s*\n\s*192\.0\.2\.10\s*\n/);
    expect(shown).toContain(`Key ID: "${created.body.id}"`);

    const ca = await call("GET", "/ssh_certificate_authorities/sshca_example01");
    const caFile = tmp.path("ca.pub");
    writeFileSync(caFile, `${ca.body.public_key}\n`);
    const caFingerprint = run("ssh-keygen", ["-l", "-f", caFile]).split(" ")[1];
    expect(shown).toContain(`Signing CA: ED25519 ${caFingerprint}`);
  });
});
