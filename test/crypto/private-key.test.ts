import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CryptoInputError, parsePrivateKey, privateKeyMatchesCertificate } from "../../src/crypto/index.js";
import {
  createSshKeyPair,
  createTestCa,
  createTestCertificate,
  type TestCertificate,
} from "../../src/crypto/testing.js";
import { hasOpenssl, needsOpenssl, run, tempDir } from "./tools.js";

function expectRefused(pem: string, message: RegExp): void {
  expect(() => parsePrivateKey(pem)).toThrow(CryptoInputError);
  expect(() => parsePrivateKey(pem)).toThrow(message);
}

describe("parsePrivateKey", () => {
  for (const keyType of ["rsa", "ecdsa", "ed25519"] as const) {
    it(`reads a PKCS#8 ${keyType} key`, async () => {
      const cert = await createTestCertificate({ keyType });
      expect(cert.privateKeyPem).toContain("-----BEGIN PRIVATE KEY-----");
      const parsed = parsePrivateKey(cert.privateKeyPem);
      expect(parsed.keyType).toBe(keyType);
      expect(parsed.key.type).toBe("private");
    });
  }

  it("reads PKCS#1 (RSA PRIVATE KEY) and SEC1 (EC PRIVATE KEY) keys, for P-256, P-384 and P-521", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    expect(parsePrivateKey(rsa.export({ format: "pem", type: "pkcs1" }).toString()).keyType).toBe("rsa");
    for (const namedCurve of ["P-256", "P-384", "P-521"]) {
      const ec = generateKeyPairSync("ec", { namedCurve }).privateKey;
      const sec1 = ec.export({ format: "pem", type: "sec1" }).toString();
      expect(sec1).toContain("EC PRIVATE KEY");
      expect(parsePrivateKey(sec1).keyType).toBe("ecdsa");
    }
  });

  it("refuses empty input and garbage", () => {
    expectRefused("", /private_key_pem is empty/);
    expectRefused(
      "correct horse battery staple",
      /contains no PEM private key: expected "-----BEGIN PRIVATE KEY-----"/,
    );
  });

  it("refuses an encrypted PKCS#8 key", () => {
    const key = generateKeyPairSync("ed25519").privateKey;
    const pem = key
      .export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "secret" })
      .toString();
    expect(pem).toContain("ENCRYPTED PRIVATE KEY");
    expectRefused(pem, /is an encrypted private key, which is not supported: decrypt it first/);
  });

  it("refuses a legacy encrypted (Proc-Type: 4,ENCRYPTED) PKCS#1 key", () => {
    const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const pem = key
      .export({ format: "pem", type: "pkcs1", cipher: "aes-128-cbc", passphrase: "secret" })
      .toString();
    expect(pem).toContain("Proc-Type: 4,ENCRYPTED");
    expectRefused(pem, /is an encrypted private key/);
  });

  it("refuses an OpenSSH private key, a PuTTY key and an SSH public key, saying what they are", () => {
    const ssh = createSshKeyPair("ed25519");
    expectRefused(ssh.privateKey, /is an OpenSSH private key: convert it to PEM/);
    expectRefused("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n", /is a PuTTY key/);
    expectRefused(ssh.publicKey, /this looks like an SSH public key/);
  });

  it("refuses a certificate or a public key in place of the private key", async () => {
    const cert = await createTestCertificate();
    expectRefused(cert.caPem, /is a CERTIFICATE, not a private key/);
    const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString();
    expectRefused(spki, /is a public key \(PUBLIC KEY\): the private key is needed/);
  });

  it("refuses two keys in one PEM", async () => {
    const a = await createTestCertificate();
    const b = await createTestCertificate();
    expectRefused(
      `${a.privateKeyPem}${b.privateKeyPem}`,
      /contains 2 PEM blocks \(PRIVATE KEY, PRIVATE KEY\): expected exactly one private key/,
    );
  });

  it("refuses unsupported key types: dsa, ed448, x25519, secp256k1", () => {
    const dsa = generateKeyPairSync("dsa", { modulusLength: 2048, divisorLength: 256 }).privateKey;
    expectRefused(
      dsa.export({ format: "pem", type: "pkcs8" }).toString(),
      /the private key is of type dsa, which is not supported: use rsa, ecdsa, ed25519/,
    );
    const ed448 = generateKeyPairSync("ed448").privateKey;
    expectRefused(
      ed448.export({ format: "pem", type: "pkcs8" }).toString(),
      /of type ed448, which is not supported/,
    );
    const x25519 = generateKeyPairSync("x25519").privateKey;
    expectRefused(
      x25519.export({ format: "pem", type: "pkcs8" }).toString(),
      /of type x25519, which is not supported/,
    );
    const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" }).privateKey;
    expectRefused(
      k1.export({ format: "pem", type: "pkcs8" }).toString(),
      /elliptic curve secp256k1, which is not supported: use P-256, P-384 or P-521/,
    );
  });

  it("refuses a PRIVATE KEY block whose body is not a key", () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from("not a key at all").toString("base64")}\n-----END PRIVATE KEY-----\n`;
    expectRefused(pem, /the PRIVATE KEY block does not parse as a private key/);
  });
});

describe("privateKeyMatchesCertificate", () => {
  const certs: Partial<Record<"rsa" | "ecdsa" | "ed25519", TestCertificate>> = {};
  beforeAll(async () => {
    for (const keyType of ["rsa", "ecdsa", "ed25519"] as const) {
      certs[keyType] = await createTestCertificate({ keyType });
    }
  });

  for (const keyType of ["rsa", "ecdsa", "ed25519"] as const) {
    it(`matches a ${keyType} key with its certificate and not with another ${keyType} certificate`, async () => {
      const mine = certs[keyType];
      if (mine === undefined) throw new Error("setup failed");
      const other = await createTestCertificate({ keyType });
      expect(privateKeyMatchesCertificate(mine.privateKeyPem, mine.certificatePem)).toBe(true);
      expect(privateKeyMatchesCertificate(other.privateKeyPem, mine.certificatePem)).toBe(false);
      expect(privateKeyMatchesCertificate(mine.privateKeyPem, other.certificatePem)).toBe(false);
    });
  }

  it("does not match a key of another type", () => {
    const { rsa, ecdsa, ed25519 } = certs;
    if (rsa === undefined || ecdsa === undefined || ed25519 === undefined) throw new Error("setup failed");
    expect(privateKeyMatchesCertificate(rsa.privateKeyPem, ecdsa.certificatePem)).toBe(false);
    expect(privateKeyMatchesCertificate(ecdsa.privateKeyPem, ed25519.certificatePem)).toBe(false);
    expect(privateKeyMatchesCertificate(ed25519.privateKeyPem, rsa.certificatePem)).toBe(false);
  });

  it("does not match the CA's key with the chain (only the leaf counts)", async () => {
    const ca = await createTestCa();
    const leaf = await createTestCertificate({ issuer: ca });
    expect(privateKeyMatchesCertificate(ca.privateKeyPem, leaf.certificatePem)).toBe(false);
    expect(privateKeyMatchesCertificate(leaf.privateKeyPem, leaf.certificatePem)).toBe(true);
  });

  it("throws, naming the field, when either input does not parse", () => {
    const { ed25519 } = certs;
    if (ed25519 === undefined) throw new Error("setup failed");
    expect(() => privateKeyMatchesCertificate("junk", ed25519.certificatePem)).toThrow(/^private_key_pem /);
    expect(() => privateKeyMatchesCertificate(ed25519.privateKeyPem, "junk")).toThrow(/^certificate_pem /);
  });
});

describe.skipIf(!hasOpenssl)(
  `parsePrivateKey and privateKeyMatchesCertificate with openssl keys${needsOpenssl}`,
  () => {
    const tmp = tempDir();
    afterAll(() => tmp.remove());
    const openssl = (...args: string[]) => run("openssl", args, { cwd: tmp.dir });

    it("reads `openssl ecparam -genkey` output (EC PARAMETERS block, then the key) and matches its certificate", () => {
      openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", "ec.key");
      const pem = readFileSync(tmp.path("ec.key"), "utf8");
      expect(pem).toContain("EC PARAMETERS");
      expect(parsePrivateKey(pem).keyType).toBe("ecdsa");
      openssl("req", "-x509", "-key", "ec.key", "-out", "ec.pem", "-subj", "/CN=ec", "-days", "1");
      expect(privateKeyMatchesCertificate(pem, readFileSync(tmp.path("ec.pem"), "utf8"))).toBe(true);
    });

    it("reads `openssl genrsa -traditional` (PKCS#1) and matches its certificate, not another one", () => {
      openssl("genrsa", "-traditional", "-out", "rsa.key", "2048");
      openssl("genrsa", "-traditional", "-out", "rsa2.key", "2048");
      const pem = readFileSync(tmp.path("rsa.key"), "utf8");
      expect(pem).toContain("RSA PRIVATE KEY");
      expect(parsePrivateKey(pem).keyType).toBe("rsa");
      openssl("req", "-x509", "-key", "rsa.key", "-out", "rsa.pem", "-subj", "/CN=rsa", "-days", "1");
      const cert = readFileSync(tmp.path("rsa.pem"), "utf8");
      expect(privateKeyMatchesCertificate(pem, cert)).toBe(true);
      expect(privateKeyMatchesCertificate(readFileSync(tmp.path("rsa2.key"), "utf8"), cert)).toBe(false);
    });

    it("matches an ed25519 key and certificate made by openssl", () => {
      openssl(
        "req",
        "-x509",
        "-newkey",
        "ed25519",
        "-nodes",
        "-keyout",
        "ed.key",
        "-out",
        "ed.pem",
        "-subj",
        "/CN=ed",
        "-days",
        "1",
      );
      const key = readFileSync(tmp.path("ed.key"), "utf8");
      expect(parsePrivateKey(key).keyType).toBe("ed25519");
      expect(privateKeyMatchesCertificate(key, readFileSync(tmp.path("ed.pem"), "utf8"))).toBe(true);
    });

    it("matches a certificate whose EC public key is stored compressed", () => {
      openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "plain.key");
      openssl("ec", "-in", "plain.key", "-conv_form", "compressed", "-out", "cmp.key");
      openssl("req", "-x509", "-key", "cmp.key", "-out", "cmp.pem", "-subj", "/CN=compressed", "-days", "1");
      const cert = readFileSync(tmp.path("cmp.pem"), "utf8");
      const text = openssl("x509", "-in", "cmp.pem", "-noout", "-text");
      // a compressed point is 33 bytes and starts 02 or 03
      expect(text).toMatch(/pub:\s*\n\s*0[23]:/);
      expect(privateKeyMatchesCertificate(readFileSync(tmp.path("cmp.key"), "utf8"), cert)).toBe(true);
    });
  },
);
