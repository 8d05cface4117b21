import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CryptoInputError, checkCertificateChain } from "../../src/crypto/index.js";
import { createTestCa, createTestCertificate, type TestCertificate } from "../../src/crypto/testing.js";
import { type CertificateInfo, parseCertificateChain } from "../../src/server/certificate-info.js";
import { hasOpenssl, needsOpenssl, run, tempDir } from "./tools.js";

const NOT_BEFORE = new Date("2026-01-01T00:00:00Z");
const NOT_AFTER = new Date("2036-01-01T00:00:00Z");

/** The PEM blocks of a text, each with its trailing newline. */
function blocks(pem: string): string[] {
  return pem.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----\n?/g) ?? [];
}

/** Both the describing parser and the check of configurations (node:crypto only) refuse it alike. */
function expectRefused(pem: string, message: RegExp): void {
  for (const read of [parseCertificateChain, checkCertificateChain]) {
    expect(() => read(pem)).toThrow(CryptoInputError);
    expect(() => read(pem)).toThrow(message);
  }
}

describe("parseCertificateChain on certificates from createTestCertificate", () => {
  for (const keyType of ["rsa", "ecdsa", "ed25519"] as const) {
    it(`reports every field of a ${keyType} leaf`, async () => {
      const ca = await createTestCa({ commonName: "Example Test Root", keyType });
      const cert = await createTestCertificate({
        issuer: ca,
        keyType,
        commonName: "app.example.com",
        organization: "Example Corp",
        organizationalUnit: "Platform",
        locality: "Berlin",
        province: "Berlin State",
        country: "DE",
        dnsNames: ["app.example.com", "*.app.example.com"],
        ips: ["192.0.2.7", "2001:db8:0:0:0:0:0:42"],
        notBefore: NOT_BEFORE,
        notAfter: NOT_AFTER,
        keyUsages: ["digital_signature", "key_encipherment"],
        extendedKeyUsages: ["server_auth", "client_auth"],
        serialNumber: "7f3a9c",
      });
      const expected: CertificateInfo = {
        subject_common_name: "app.example.com",
        subject_alternative_names: {
          dns_names: ["app.example.com", "*.app.example.com"],
          ips: ["192.0.2.7", "2001:db8::42"],
        },
        not_before: "2026-01-01T00:00:00Z",
        not_after: "2036-01-01T00:00:00Z",
        key_usages: ["digital_signature", "key_encipherment"],
        extended_key_usages: ["server_auth", "client_auth"],
        private_key_type: keyType,
        issuer_common_name: "Example Test Root",
        serial_number: "7f3a9c",
        subject_organization: "Example Corp",
        subject_organizational_unit: "Platform",
        subject_locality: "Berlin",
        subject_province: "Berlin State",
        subject_country: "DE",
      };
      expect(parseCertificateChain(cert.certificatePem)).toEqual(expected);
      expect(blocks(cert.certificatePem)).toHaveLength(2);
    });
  }

  it("reports every key usage in bit order, every known EKU by name and unknown EKUs by OID", async () => {
    const cert = await createTestCertificate({
      keyUsages: [
        "decipher_only",
        "encipher_only",
        "crl_sign",
        "cert_sign",
        "key_agreement",
        "data_encipherment",
        "key_encipherment",
        "content_commitment",
        "digital_signature",
      ],
      extendedKeyUsages: [
        "any",
        "server_auth",
        "client_auth",
        "code_signing",
        "email_protection",
        "ipsec_end_system",
        "ipsec_tunnel",
        "ipsec_user",
        "time_stamping",
        "ocsp_signing",
        "microsoft_server_gated_crypto",
        "netscape_server_gated_crypto",
        "microsoft_commercial_code_signing",
        "microsoft_kernel_code_signing",
        "1.3.6.1.4.1.99999.1",
      ],
    });
    const info = parseCertificateChain(cert.certificatePem);
    expect(info.key_usages).toEqual([
      "digital_signature",
      "content_commitment",
      "key_encipherment",
      "data_encipherment",
      "key_agreement",
      "cert_sign",
      "crl_sign",
      "encipher_only",
      "decipher_only",
    ]);
    expect(info.extended_key_usages).toEqual([
      "any",
      "server_auth",
      "client_auth",
      "code_signing",
      "email_protection",
      "ipsec_end_system",
      "ipsec_tunnel",
      "ipsec_user",
      "time_stamping",
      "ocsp_signing",
      "microsoft_server_gated_crypto",
      "netscape_server_gated_crypto",
      "microsoft_commercial_code_signing",
      "microsoft_kernel_code_signing",
      "1.3.6.1.4.1.99999.1",
    ]);
  });

  it("gives empty strings and lists for what a certificate does not have", async () => {
    const cert = await createTestCertificate({
      commonName: "",
      dnsNames: [],
      keyUsages: [],
      extendedKeyUsages: [],
      issuer: "self",
    });
    const info = parseCertificateChain(cert.certificatePem);
    expect(info.subject_common_name).toBe("");
    expect(info.issuer_common_name).toBe("");
    expect(info.subject_alternative_names).toEqual({ dns_names: [], ips: [] });
    expect(info.key_usages).toEqual([]);
    expect(info.extended_key_usages).toEqual([]);
    for (const field of [
      "subject_organization",
      "subject_organizational_unit",
      "subject_locality",
      "subject_province",
      "subject_country",
    ] as const) {
      expect(info[field]).toBe("");
    }
  });

  it("reads a self-signed leaf: its own issuer, a chain of one", async () => {
    const cert = await createTestCertificate({ commonName: "self.example.com", issuer: "self" });
    expect(blocks(cert.certificatePem)).toHaveLength(1);
    expect(cert.caPem).toBe(cert.certificatePem);
    const info = parseCertificateChain(cert.certificatePem);
    expect(info.issuer_common_name).toBe("self.example.com");
  });

  it("reads dates after 2049 (GeneralizedTime) and before 2000", async () => {
    const cert = await createTestCertificate({
      notBefore: new Date("1999-12-31T23:59:59Z"),
      notAfter: new Date("2051-06-30T12:00:00Z"),
    });
    const info = parseCertificateChain(cert.certificatePem);
    expect(info.not_before).toBe("1999-12-31T23:59:59Z");
    expect(info.not_after).toBe("2051-06-30T12:00:00Z");
  });

  it("writes the serial number as unsigned lower-case hex without leading zero bytes", async () => {
    const high = await createTestCertificate({ serialNumber: "00c0ffee0123456789" });
    expect(parseCertificateChain(high.certificatePem).serial_number).toBe("c0ffee0123456789");
    const small = await createTestCertificate({ serialNumber: "05" });
    expect(parseCertificateChain(small.certificatePem).serial_number).toBe("05");
  });

  it("accepts CRLF line ends, surrounding whitespace and text between blocks", async () => {
    const cert = await createTestCertificate({ commonName: "crlf.example.com" });
    const [leaf = "", ca = ""] = blocks(cert.certificatePem);
    const decorated = `\n  subject=CN=crlf.example.com\n${leaf}issuer=CN=tgw test CA\n${ca}\n\n`.replace(
      /\n/g,
      "\r\n",
    );
    expect(parseCertificateChain(decorated).subject_common_name).toBe("crlf.example.com");
  });

  it("accepts a chain of three: leaf, intermediate, root", async () => {
    const root = await createTestCa({ commonName: "Root", keyType: "rsa" });
    const intermediate = await createTestCa({ commonName: "Intermediate", issuer: root, keyType: "ed25519" });
    const leaf = await createTestCertificate({ issuer: intermediate, commonName: "leaf.example.com" });
    const chain = `${leaf.certificatePem}${root.certificatePem}`;
    expect(blocks(chain)).toHaveLength(3);
    const info = parseCertificateChain(chain);
    expect([info.subject_common_name, info.issuer_common_name]).toEqual(["leaf.example.com", "Intermediate"]);
    // the root alone is a chain of one; leaf + root without the intermediate is not a chain
    expect(parseCertificateChain(root.certificatePem).issuer_common_name).toBe("Root");
    const [leafOnly = ""] = blocks(leaf.certificatePem);
    expect(() => parseCertificateChain(`${leafOnly}${root.certificatePem}`)).toThrow(
      /certificate 1 was not issued by certificate 2/,
    );
  });
});

describe("parseCertificateChain refuses bad input with a message saying what is wrong", () => {
  let cert: TestCertificate;
  beforeAll(async () => {
    cert = await createTestCertificate({ commonName: "bad.example.com" });
  });

  it("empty input", () => {
    expectRefused("", /certificate_pem is empty/);
    expectRefused("  \n\t", /certificate_pem is empty/);
  });

  it("not a string", () => {
    expectRefused(42 as unknown as string, /must be a string/);
  });

  it("garbage without any PEM block", () => {
    expectRefused(
      "hello, I am a certificate",
      /contains no PEM block: expected "-----BEGIN CERTIFICATE-----"/,
    );
  });

  it("a private key instead of (or inside) the chain", () => {
    expectRefused(
      cert.privateKeyPem,
      /PEM block 1 is a PRIVATE KEY, not a CERTIFICATE: the private key goes in private_key_pem/,
    );
    expectRefused(`${cert.certificatePem}${cert.privateKeyPem}`, /PEM block 3 is a PRIVATE KEY/);
  });

  it("another kind of PEM block", () => {
    const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString();
    expectRefused(spki, /PEM block 1 is a PUBLIC KEY, not a CERTIFICATE/);
  });

  it("a truncated block", () => {
    const [leaf = ""] = blocks(cert.certificatePem);
    const cut = leaf.slice(0, leaf.indexOf("-----END"));
    expectRefused(
      cut,
      /PEM block 1 \(CERTIFICATE\) has no "-----END CERTIFICATE-----" line: is it truncated\?/,
    );
    expectRefused(
      `${cut}${cert.caPem}`,
      /PEM block 1 \(CERTIFICATE\) has no "-----END CERTIFICATE-----" line before the next BEGIN/,
    );
  });

  it("an END line without BEGIN, or with another label", () => {
    expectRefused("-----END CERTIFICATE-----\n", /without a matching BEGIN line/);
    expectRefused(
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n",
      /begins as CERTIFICATE but ends as PRIVATE KEY/,
    );
  });

  it("a body that is not base64", () => {
    expectRefused(
      "-----BEGIN CERTIFICATE-----\nnot*base64!\n-----END CERTIFICATE-----\n",
      /PEM block 1 \(CERTIFICATE\) does not contain valid base64/,
    );
    expectRefused(
      "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
      /does not contain valid base64/,
    );
  });

  it("valid base64 that is not a certificate", () => {
    const pem = `-----BEGIN CERTIFICATE-----\n${Buffer.from("definitely not DER").toString("base64")}\n-----END CERTIFICATE-----\n`;
    expectRefused(pem, /PEM block 1 is not a valid X.509 certificate/);
  });

  it("a damaged certificate (one byte of the signature changed)", () => {
    const [leaf = ""] = blocks(cert.certificatePem);
    const der = Buffer.from(leaf.replace(/-----[^-]+-----|\s/g, ""), "base64");
    const at = der.length - 5;
    der.writeUInt8(der.readUInt8(at) ^ 0xff, at);
    const broken = `-----BEGIN CERTIFICATE-----\n${der.toString("base64")}\n-----END CERTIFICATE-----\n`;
    expectRefused(`${broken}${cert.caPem}`, /certificate 1 was not issued by certificate 2/);
  });

  it("a chain out of order (issuer first)", () => {
    const [leaf = "", ca = ""] = blocks(cert.certificatePem);
    expectRefused(
      `${ca}${leaf}`,
      /certificate 1 was not issued by certificate 2: the chain must be in order, leaf first/,
    );
  });

  it("a chain with an unrelated second certificate", async () => {
    const other = await createTestCa({ commonName: "Someone Else" });
    const [leaf = ""] = blocks(cert.certificatePem);
    expectRefused(`${leaf}${other.certificatePem}`, /certificate 1 was not issued by certificate 2/);
  });

  it.skipIf(!hasOpenssl)(`a leaf with an unsupported key type (ed448)${needsOpenssl}`, () => {
    const tmp = tempDir();
    try {
      run("openssl", [
        "req",
        "-x509",
        "-newkey",
        "ed448",
        "-nodes",
        "-keyout",
        tmp.path("k"),
        "-out",
        tmp.path("c"),
        "-subj",
        "/CN=ed448.example.com",
        "-days",
        "1",
      ]);
      expectRefused(
        readFileSync(tmp.path("c"), "utf8"),
        /leaf certificate's public key is of type ed448, which is not supported: use rsa, ecdsa, ed25519/,
      );
    } finally {
      tmp.remove();
    }
  });
});

describe.skipIf(!hasOpenssl)(
  `parseCertificateChain on certificates made by the openssl CLI${needsOpenssl}`,
  () => {
    const tmp = tempDir();
    afterAll(() => tmp.remove());
    const openssl = (...args: string[]) => run("openssl", args, { cwd: tmp.dir });

    /** openssl's own reading of a certificate: dates and serial, to compare with ours. */
    function opensslView(file: string): { notBefore: string; notAfter: string; serial: string } {
      const out = openssl("x509", "-in", file, "-noout", "-startdate", "-enddate", "-serial");
      const field = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(out)?.[1] ?? "";
      const rfc3339 = (s: string) => new Date(s).toISOString().replace(/\.000Z$/, "Z");
      return {
        notBefore: rfc3339(field("notBefore")),
        notAfter: rfc3339(field("notAfter")),
        serial: field("serial").toLowerCase(),
      };
    }

    it("reports every field of an ecdsa P-384 leaf signed by an RSA CA, as openssl sees them", () => {
      openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-subj",
        "/O=OpenSSL Test/CN=OpenSSL Test CA",
        "-days",
        "3650",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      );
      openssl(
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-384",
        "-nodes",
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/C=FR/ST=Ile-de-France/L=Paris/O=Exemple SA/OU=Plateforme/OU=Second Unit/CN=shop.example.org",
      );
      writeFileSync(
        tmp.path("ext.cnf"),
        [
          "basicConstraints=CA:FALSE",
          "subjectAltName=DNS:shop.example.org,DNS:*.shop.example.org,IP:198.51.100.20,IP:2001:db8::20,email:ops@example.org",
          "keyUsage=critical,digitalSignature,keyAgreement",
          "extendedKeyUsage=serverAuth,clientAuth,codeSigning",
          "authorityKeyIdentifier=keyid",
          "",
        ].join("\n"),
      );
      openssl(
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-set_serial",
        "0xC0FFEE0123456789AB",
        "-days",
        "30",
        "-extfile",
        "ext.cnf",
        "-out",
        "leaf.pem",
      );
      const chain = readFileSync(tmp.path("leaf.pem"), "utf8") + readFileSync(tmp.path("ca.pem"), "utf8");
      const view = opensslView("leaf.pem");
      expect(view.serial).toBe("c0ffee0123456789ab");
      expect(parseCertificateChain(chain)).toEqual({
        subject_common_name: "shop.example.org",
        subject_alternative_names: {
          dns_names: ["shop.example.org", "*.shop.example.org"],
          ips: ["198.51.100.20", "2001:db8::20"],
        },
        not_before: view.notBefore,
        not_after: view.notAfter,
        key_usages: ["digital_signature", "key_agreement"],
        extended_key_usages: ["server_auth", "client_auth", "code_signing"],
        private_key_type: "ecdsa",
        issuer_common_name: "OpenSSL Test CA",
        serial_number: "c0ffee0123456789ab",
        subject_organization: "Exemple SA",
        subject_organizational_unit: "Plateforme",
        subject_locality: "Paris",
        subject_province: "Ile-de-France",
        subject_country: "FR",
      } satisfies CertificateInfo);
    });

    for (const [keyType, newkey] of [
      ["rsa", "rsa:2048"],
      ["ecdsa", "ec:-"],
      ["ed25519", "ed25519"],
    ] as const) {
      it(`reads a self-signed ${keyType} certificate made by openssl`, () => {
        const args = [
          "req",
          "-x509",
          "-nodes",
          "-keyout",
          `${keyType}.key`,
          "-out",
          `${keyType}.pem`,
          "-subj",
          `/CN=${keyType}.example.net`,
          "-days",
          "7",
          "-addext",
          `subjectAltName=DNS:${keyType}.example.net`,
        ];
        if (newkey === "ec:-") args.push("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256");
        else args.push("-newkey", newkey);
        openssl(...args);
        const info = parseCertificateChain(readFileSync(tmp.path(`${keyType}.pem`), "utf8"));
        const view = opensslView(`${keyType}.pem`);
        expect(info.private_key_type).toBe(keyType);
        expect(info.subject_common_name).toBe(`${keyType}.example.net`);
        expect(info.issuer_common_name).toBe(`${keyType}.example.net`);
        expect(info.subject_alternative_names).toEqual({ dns_names: [`${keyType}.example.net`], ips: [] });
        expect(info.serial_number).toBe(view.serial);
        expect(info.not_before).toBe(view.notBefore);
        expect(info.not_after).toBe(view.notAfter);
      });
    }

    it("agrees with openssl on the serial and dates of a createTestCertificate certificate", async () => {
      const cert = await createTestCertificate({
        notBefore: NOT_BEFORE,
        notAfter: NOT_AFTER,
        serialNumber: "0089abcdef",
      });
      writeFileSync(tmp.path("ours.pem"), cert.certificatePem);
      const view = opensslView("ours.pem");
      const info = parseCertificateChain(cert.certificatePem);
      expect([info.serial_number, info.not_before, info.not_after]).toEqual([
        view.serial,
        view.notBefore,
        view.notAfter,
      ]);
      expect(info.serial_number).toBe("89abcdef");
      // and openssl agrees that the chain is valid: the leaf is signed by the CA
      writeFileSync(tmp.path("ours-ca.pem"), cert.caPem);
      writeFileSync(tmp.path("ours-leaf.pem"), blocks(cert.certificatePem)[0] ?? "");
      expect(openssl("verify", "-attime", "1800000000", "-CAfile", "ours-ca.pem", "ours-leaf.pem")).toContain(
        "OK",
      );
    });
  },
);
