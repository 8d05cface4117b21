import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import sshpk from "sshpk";
import { afterAll, describe, expect, it } from "vitest";
import {
  CryptoInputError,
  generateSshCaKeyPair,
  parseSshPublicKey,
  signSshHostCertificate,
} from "../../src/crypto/index.js";
import { createSshKeyPair } from "../../src/crypto/testing.js";
import { hasSshKeygen, needsSshKeygen, run, tempDir } from "./tools.js";

function expectRefused(text: string, message: RegExp): void {
  expect(() => parseSshPublicKey(text)).toThrow(CryptoInputError);
  expect(() => parseSshPublicKey(text)).toThrow(message);
}

/** SSH wire encoding of a string (uint32 length + bytes), to build test blobs by hand. */
function sshString(data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** The modulus of an sshpk RSA key (@types/sshpk types `part` by algorithm name, not by part name). */
function rsaModulus(key: sshpk.Key): Buffer {
  const n = key.parts.find((p) => p.name === "n");
  if (n === undefined) throw new Error("not an RSA key");
  return n.data;
}

/** OpenSSH's fingerprint, computed independently: SHA-256 of the key blob, unpadded base64. */
function fingerprintOf(line: string): string {
  const blob = Buffer.from(line.split(" ")[1] ?? "", "base64");
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

describe("parseSshPublicKey accepts each supported type", () => {
  const cases = [
    { type: "ed25519", algorithm: "ssh-ed25519", make: () => createSshKeyPair("ed25519") },
    { type: "rsa", algorithm: "ssh-rsa", make: () => createSshKeyPair("rsa") },
    { type: "ecdsa", algorithm: "ecdsa-sha2-nistp256", make: () => createSshKeyPair("ecdsa") },
    {
      type: "ecdsa",
      algorithm: "ecdsa-sha2-nistp384",
      make: () => createSshKeyPair("ecdsa", { ecdsaCurve: 384 }),
    },
    {
      type: "ecdsa",
      algorithm: "ecdsa-sha2-nistp521",
      make: () => createSshKeyPair("ecdsa", { ecdsaCurve: 521 }),
    },
  ] as const;
  for (const c of cases) {
    it(`${c.algorithm} -> ${c.type}`, () => {
      const { publicKey } = c.make();
      const [algorithm, data, comment] = publicKey.split(" ");
      expect(algorithm).toBe(c.algorithm);
      expect(comment).toBe("tgw-test");
      expect(parseSshPublicKey(publicKey)).toEqual({
        keyType: c.type,
        fingerprint: fingerprintOf(publicKey),
        comment: "tgw-test",
        normalized: `${algorithm} ${data}`,
      });
    });
  }

  it("has no comment when there is none, keeps one with spaces, ignores surrounding whitespace and tabs", () => {
    const [algorithm, data] = createSshKeyPair("ed25519").publicKey.split(" ");
    const bare = parseSshPublicKey(`${algorithm} ${data}`);
    expect(bare.comment).toBeUndefined();
    expect("comment" in bare).toBe(false);
    expect(parseSshPublicKey(`  ${algorithm}\t${data}   deploy key  for  prod \n`)).toMatchObject({
      comment: "deploy key  for  prod",
      normalized: `${algorithm} ${data}`,
    });
  });
});

describe("parseSshPublicKey refuses bad input with a message saying what is wrong", () => {
  const ed = createSshKeyPair("ed25519");
  const [edAlgorithm = "", edData = ""] = ed.publicKey.split(" ");

  it("empty input and non-strings", () => {
    expectRefused("", /public_key is empty: expected an OpenSSH public key line/);
    expectRefused(" \n ", /public_key is empty/);
    expectRefused(null as unknown as string, /public_key must be a string/);
  });

  it("a private key pasted by mistake: OpenSSH, PKCS#8, PuTTY", () => {
    expectRefused(ed.privateKey, /this looks like a private key/);
    const pkcs8 = generateKeyPairSync("ed25519")
      .privateKey.export({ format: "pem", type: "pkcs8" })
      .toString();
    expectRefused(pkcs8, /this looks like a private key/);
    expectRefused("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n", /this looks like a private key/);
  });

  it("a key blob that carries private key parts", () => {
    const priv = sshpk.parsePrivateKey(ed.privateKey, "openssh");
    const blob = priv.toBuffer("rfc4253").toString("base64");
    expectRefused(`ssh-ed25519 ${blob}`, /holds private key parts: this looks like a private key/);
  });

  it("DSA keys", () => {
    const dsa = generateKeyPairSync("dsa", { modulusLength: 1024, divisorLength: 160 }).publicKey;
    const line = sshpk
      .parseKey(dsa.export({ format: "pem", type: "spki" }).toString(), "pem")
      .toString("ssh");
    expect(line.startsWith("ssh-dss ")).toBe(true);
    expectRefused(line, /DSA \(ssh-dss\) keys are not supported/);
  });

  it("security key, unknown and missing types", () => {
    expectRefused(
      `sk-ssh-ed25519@openssh.com ${edData}`,
      /security key \(FIDO, sk-ssh-ed25519@openssh.com\) keys are not supported/,
    );
    expectRefused(
      `ssh-foo ${edData}`,
      /unknown key type "ssh-foo": expected ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/,
    );
    expectRefused(edData, /unknown key type/);
    expectRefused("ssh-ed25519", /has no key data after "ssh-ed25519"/);
  });

  it("truncated or damaged base64", () => {
    expectRefused(`${edAlgorithm} ${edData.slice(0, -8)}`, /the key data is truncated or damaged/);
    expectRefused(
      `${edAlgorithm} ${edData.slice(0, -3)}`,
      /the key data is not valid base64 \(truncated or damaged\?\)/,
    );
    expectRefused(`${edAlgorithm} ${edData.slice(0, 20)}!${edData.slice(21)}`, /not valid base64/);
    expectRefused(
      `${edAlgorithm} ${Buffer.from("garbage inside").toString("base64")}`,
      /truncated or damaged/,
    );
  });

  it("an algorithm that does not match the key data", () => {
    expectRefused(`ssh-rsa ${edData}`, /the line says ssh-rsa but the key data is ssh-ed25519/);
    const [, p256] = createSshKeyPair("ecdsa").publicKey.split(" ");
    expectRefused(
      `ecdsa-sha2-nistp384 ${p256}`,
      /the line says ecdsa-sha2-nistp384 but the key data is ecdsa-sha2-nistp256/,
    );
  });

  it("an EC point that is not on the curve", () => {
    const point = Buffer.concat([Buffer.from([4]), randomBytes(64)]);
    const blob = Buffer.concat([sshString("ecdsa-sha2-nistp256"), sshString("nistp256"), sshString(point)]);
    expectRefused(
      `ecdsa-sha2-nistp256 ${blob.toString("base64")}`,
      /the key data is not a valid ecdsa-sha2-nistp256 key/,
    );
  });

  it("a key blob in a non-canonical encoding (an extra leading zero in an mpint)", () => {
    const rsa = sshpk.parseKey(createSshKeyPair("rsa").publicKey, "ssh");
    const blob = Buffer.concat([
      sshString("ssh-rsa"),
      sshString(Buffer.from([0, 0, 1, 0, 1])),
      sshString(rsaModulus(rsa)),
    ]);
    expectRefused(`ssh-rsa ${blob.toString("base64")}`, /the key data is not in the canonical SSH encoding/);
  });

  it("RSA keys shorter than 1024 bits", () => {
    const weak = generateKeyPairSync("rsa", { modulusLength: 768 }).publicKey;
    const line = sshpk
      .parseKey(weak.export({ format: "pem", type: "spki" }).toString(), "pem")
      .toString("ssh");
    expectRefused(line, /the RSA key has 768 bits; at least 1024 are required/);
  });

  it("an SSH certificate instead of a key", () => {
    const ca = generateSshCaKeyPair();
    const cert = signSshHostCertificate({
      caPrivateKey: ca.privateKey,
      publicKey: ed.publicKey,
      principals: ["h.example.com"],
      validAfter: new Date("2026-01-01T00:00:00Z"),
      validBefore: new Date("2027-01-01T00:00:00Z"),
      keyId: "h",
    });
    expectRefused(cert, /is an SSH certificate, not a public key/);
  });

  it("PEM and RFC 4716 public keys", () => {
    const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString();
    expectRefused(spki, /is a PEM block, not an OpenSSH public key: convert it with ssh-keygen -i -m PKCS8/);
    const rfc4716 = `---- BEGIN SSH2 PUBLIC KEY ----\nComment: "x"\n${edData}\n---- END SSH2 PUBLIC KEY ----\n`;
    expectRefused(rfc4716, /is in RFC 4716 \(SSH2\) format: convert it with ssh-keygen -i/);
  });

  it("authorized_keys options before the key", () => {
    expectRefused(`no-pty,command="echo hi" ${ed.publicKey}`, /starts with authorized_keys options/);
    expectRefused(`restrict ${ed.publicKey}`, /starts with authorized_keys options \("restrict"\)/);
  });

  it("several keys or lines", () => {
    expectRefused(
      `${ed.publicKey}\n${createSshKeyPair("rsa").publicKey}`,
      /must be a single key on one line/,
    );
  });
});

describe.skipIf(!hasSshKeygen)(`parseSshPublicKey agrees with ssh-keygen${needsSshKeygen}`, () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  for (const [type, args, keyType] of [
    ["ed25519", ["-t", "ed25519"], "ed25519"],
    ["rsa", ["-t", "rsa", "-b", "2048"], "rsa"],
    ["ecdsa-256", ["-t", "ecdsa", "-b", "256"], "ecdsa"],
    ["ecdsa-384", ["-t", "ecdsa", "-b", "384"], "ecdsa"],
    ["ecdsa-521", ["-t", "ecdsa", "-b", "521"], "ecdsa"],
  ] as const) {
    it(`reads a ${type} key made by ssh-keygen, with ssh-keygen's fingerprint`, () => {
      const file = tmp.path(`id_${type}`);
      run("ssh-keygen", [...args, "-N", "", "-C", `me@host ${type}`, "-q", "-f", file]);
      const line = readFileSync(`${file}.pub`, "utf8");
      const parsed = parseSshPublicKey(line);
      const [, fingerprint] = run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${file}.pub`]).split(" ");
      expect(parsed.keyType).toBe(keyType);
      expect(parsed.fingerprint).toBe(fingerprint);
      expect(parsed.comment).toBe(`me@host ${type}`);
      expect(`${parsed.normalized} ${parsed.comment}\n`).toBe(line);
      // and the private key file pasted by mistake is recognised as one
      expect(() => parseSshPublicKey(readFileSync(file, "utf8"))).toThrow(/this looks like a private key/);
    });
  }

  it("reads the public keys made by createSshKeyPair back with ssh-keygen", () => {
    for (const type of ["ed25519", "rsa", "ecdsa"] as const) {
      const pair = createSshKeyPair(type);
      writeFileSync(tmp.path(`ours_${type}.pub`), `${pair.publicKey}\n`);
      const out = run("ssh-keygen", ["-l", "-E", "sha256", "-f", tmp.path(`ours_${type}.pub`)]);
      expect(out.split(" ")[1]).toBe(parseSshPublicKey(pair.publicKey).fingerprint);
    }
  });
});
