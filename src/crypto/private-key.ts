/**
 * Reading the private key uploaded with a TLS certificate and checking it belongs to the leaf
 * (docs/api.md "TLS certificate" `private_key_pem`; docs/design.md section 5: the key must parse and match the
 * leaf's public key, else 400). Parsing is node:crypto's.
 *
 * Accepted: one unencrypted PEM private key, PKCS#8 (`PRIVATE KEY`), PKCS#1 (`RSA PRIVATE KEY`) or SEC1
 * (`EC PRIVATE KEY`, optionally after the `EC PARAMETERS` block that `openssl ecparam -genkey` writes),
 * of type rsa, ecdsa (P-256/384/521) or ed25519.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { CryptoInputError } from "./errors.js";
import { type KeyType, keyTypeOf } from "./key-type.js";
import { memoByText } from "./memo.js";
import { readPemBlocks } from "./pem.js";
import { leafPublicKey } from "./x509.js";

/** A parsed private key. */
export interface ParsedPrivateKey {
  keyType: KeyType;
  /** The node:crypto private key. */
  key: KeyObject;
}

// PEM label -> the DER structure node:crypto is told to read.
const KEY_FORMATS: Readonly<Record<string, "pkcs8" | "pkcs1" | "sec1">> = {
  "PRIVATE KEY": "pkcs8",
  "RSA PRIVATE KEY": "pkcs1",
  "EC PRIVATE KEY": "sec1",
};

/**
 * Parse one PEM private key.
 *
 * @param pem PEM text holding exactly one private key (see the accepted forms above)
 * @param what how to name the input in messages; defaults to `private_key_pem`
 * @returns the key and its API type
 * @throws CryptoInputError saying what is wrong: empty, no PEM block, encrypted (`ENCRYPTED PRIVATE KEY`
 *   or a `Proc-Type: 4,ENCRYPTED` header), OpenSSH or PuTTY format, a certificate or public key instead
 *   of a private key, several keys, a body that does not parse, an unsupported type (dsa, ed448...)
 */
export function parsePrivateKey(pem: string, what = "private_key_pem"): ParsedPrivateKey {
  return parseKeyMemo(pem, what);
}

const parseKeyMemo = memoByText(parsePrivateKeyOnce);

function parsePrivateKeyOnce(pem: string, what: string): ParsedPrivateKey {
  if (typeof pem !== "string") throw new CryptoInputError(`${what} must be a string of PEM text`);
  const text = pem.trim();
  if (text === "") throw new CryptoInputError(`${what} is empty: expected a PEM private key`);
  if (text.startsWith("PuTTY-User-Key-File")) {
    throw new CryptoInputError(
      `${what} is a PuTTY key: export it as PEM (puttygen key.ppk -O private-openssl -o key.pem)`,
    );
  }
  const blocks = readPemBlocks(text, what).filter((block) => block.label !== "EC PARAMETERS");
  if (blocks.length === 0) {
    const hint = /^(ssh-|ecdsa-sha2-)/.test(text) ? ": this looks like an SSH public key" : "";
    throw new CryptoInputError(
      `${what} contains no PEM private key${hint}: expected "-----BEGIN PRIVATE KEY-----"`,
    );
  }
  if (blocks.length > 1) {
    throw new CryptoInputError(
      `${what} contains ${blocks.length} PEM blocks (${blocks.map((b) => b.label).join(", ")}): expected exactly one private key`,
    );
  }
  const block = blocks[0];
  if (block === undefined) throw new Error("unreachable: one block expected");
  const decrypt = "decrypt it first, e.g. openssl pkey -in key.pem -out key-plain.pem";
  if (block.label === "ENCRYPTED PRIVATE KEY" || /ENCRYPTED/i.test(block.headers["Proc-Type"] ?? "")) {
    throw new CryptoInputError(`${what} is an encrypted private key, which is not supported: ${decrypt}`);
  }
  if (block.label === "OPENSSH PRIVATE KEY") {
    throw new CryptoInputError(
      `${what} is an OpenSSH private key: convert it to PEM (ssh-keygen -p -m PKCS8 -f KEYFILE) or use the key issued with the certificate`,
    );
  }
  if (block.label === "DSA PRIVATE KEY") {
    throw new CryptoInputError(`${what} is a DSA key, which is not supported: use rsa, ecdsa or ed25519`);
  }
  if (block.label.includes("CERTIFICATE")) {
    throw new CryptoInputError(`${what} is a ${block.label}, not a private key`);
  }
  if (block.label.includes("PUBLIC KEY")) {
    throw new CryptoInputError(`${what} is a public key (${block.label}): the private key is needed`);
  }
  const format = KEY_FORMATS[block.label];
  if (format === undefined) {
    throw new CryptoInputError(
      `${what} is a ${block.label}: expected PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY`,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: block.der, format: "der", type: format });
  } catch (err) {
    throw new CryptoInputError(`${what}: the ${block.label} block does not parse as a private key`, {
      cause: err,
    });
  }
  return { keyType: keyTypeOf(key, `${what}: the private key`), key };
}

/**
 * Whether a private key belongs to the leaf certificate of a chain: their public keys are equal.
 * Keys are compared as JWK members (n/e, crv/x/y, crv/x), so encoding differences (such as a compressed
 * EC point) do not matter.
 *
 * @param keyPem PEM private key (as parsePrivateKey)
 * @param certPem PEM certificate chain, leaf first (as parseCertificateChain)
 * @returns true when they match, false otherwise (including different key types)
 * @throws CryptoInputError when either input does not parse (messages name `private_key_pem` and
 *   `certificate_pem`)
 */
export function privateKeyMatchesCertificate(keyPem: string, certPem: string): boolean {
  return privateKeyId(keyPem, "private_key_pem") === certificateKeyId(certPem, "certificate_pem");
}

// Each public key is exported once per text (see ./memo.ts): many objects share a key or a chain.
const privateKeyId = memoByText((pem: string, what: string) =>
  publicKeyId(createPublicKey(parsePrivateKey(pem, what).key)),
);
const certificateKeyId = memoByText((pem: string, what: string) => publicKeyId(leafPublicKey(pem, what)));

function publicKeyId(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  return JSON.stringify([jwk.kty, jwk.crv, jwk.n, jwk.e, jwk.x, jwk.y]);
}
