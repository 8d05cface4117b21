/**
 * Reading an SSH public key in OpenSSH authorized_keys form (docs/api.md "SSH credential" `public_key`,
 * "SSH host certificate" `public_key` and `key_type`). Decoding and fingerprints are sshpk's; node:crypto
 * then loads the key, which proves the key material itself is sound (an EC point on its curve...).
 *
 * Accepted: one line `<algorithm> <base64 key blob> [comment]` where the algorithm is `ssh-ed25519`,
 * `ssh-rsa` (at least 1024 bits, OpenSSH's own minimum) or `ecdsa-sha2-nistp256|384|521`, and matches the
 * algorithm inside the blob. Refused, each with its own message: DSA, security-key (`sk-`) keys, SSH
 * certificates, authorized_keys options, PEM or RFC 4716 public keys, private keys, several lines,
 * damaged or truncated base64.
 */
import { createPublicKey } from "node:crypto";
import sshpk from "sshpk";
import { CryptoInputError } from "./errors.js";
import { type KeyType, keyTypeOf } from "./key-type.js";
import { memoByText } from "./memo.js";

/** A parsed SSH public key. */
export interface SshPublicKey {
  /** API key type (docs/api.md "SSH host certificate" `key_type`). */
  keyType: KeyType;
  /** OpenSSH SHA-256 fingerprint as `ssh-keygen -l` prints it: `SHA256:` + unpadded base64. */
  fingerprint: string;
  /** The comment after the key data (trimmed), when there is one. */
  comment?: string;
  /** `<algorithm> <base64>` with single spacing and without the comment: the key's identity, for
   *  comparing two spellings of one key (append ` ${comment}` to rebuild the line). */
  normalized: string;
}

const ALGORITHMS = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
];
const EXPECTED = "expected an OpenSSH public key line such as `ssh-ed25519 AAAA... comment`";
const MIN_RSA_BITS = 1024;

/**
 * Parse one OpenSSH public key line.
 *
 * @param text the key line; surrounding whitespace and a trailing newline are ignored
 * @param what how to name the input in messages; defaults to `public_key`
 * @returns type, fingerprint, comment and normalized form
 * @throws CryptoInputError saying what is wrong (see the refusals above); a pasted private key gets
 *   "this looks like a private key"
 */
export function parseSshPublicKey(text: string, what = "public_key"): SshPublicKey {
  return parseSshMemo(text, what);
}

const parseSshMemo = memoByText(parseSshPublicKeyOnce);

function parseSshPublicKeyOnce(text: string, what: string): SshPublicKey {
  if (typeof text !== "string") throw new CryptoInputError(`${what} must be a string`);
  const line = text.trim();
  if (line === "") throw new CryptoInputError(`${what} is empty: ${EXPECTED}`);
  if (/PRIVATE KEY-----/.test(line) || line.startsWith("PuTTY-User-Key-File")) {
    throw new CryptoInputError(
      `${what}: this looks like a private key: give the public key (the .pub file, e.g. ~/.ssh/id_ed25519.pub) and keep the private key secret`,
    );
  }
  if (line.startsWith("---- BEGIN SSH2 PUBLIC KEY ----")) {
    throw new CryptoInputError(
      `${what} is in RFC 4716 (SSH2) format: convert it with ssh-keygen -i -f KEYFILE; ${EXPECTED}`,
    );
  }
  if (line.startsWith("-----BEGIN")) {
    throw new CryptoInputError(
      `${what} is a PEM block, not an OpenSSH public key: convert it with ssh-keygen -i -m PKCS8 -f KEYFILE; ${EXPECTED}`,
    );
  }
  if (line.includes("\n")) {
    throw new CryptoInputError(`${what} must be a single key on one line; it has several lines`);
  }
  const parts = /^(\S+)(?:[ \t]+(\S+))?(?:[ \t]+(.*))?$/.exec(line);
  const algorithm = parts?.[1] ?? "";
  const data = parts?.[2] ?? "";
  const comment = parts?.[3]?.trim() ?? "";
  checkAlgorithm(algorithm, line, what);
  if (data === "") throw new CryptoInputError(`${what} has no key data after "${algorithm}"`);
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
    throw new CryptoInputError(`${what}: the key data is not valid base64 (truncated or damaged?)`);
  }
  const blob = Buffer.from(data, "base64");
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(blob, "rfc4253");
  } catch (err) {
    throw new CryptoInputError(`${what}: the key data is truncated or damaged`, { cause: err });
  }
  // sshpk reads a blob with private parts as its public key: refuse it rather than accept a secret.
  if (holdsPrivateParts(blob)) {
    throw new CryptoInputError(
      `${what}: the key data holds private key parts: this looks like a private key`,
    );
  }
  const canonical = key.toBuffer("rfc4253");
  if (!blob.equals(canonical)) {
    throw new CryptoInputError(`${what}: the key data is not in the canonical SSH encoding`);
  }
  const inner = blobAlgorithm(key);
  if (inner !== algorithm) {
    throw new CryptoInputError(
      `${what}: the line says ${algorithm} but the key data is ${inner ?? "something else"}`,
    );
  }
  let keyType: KeyType;
  try {
    keyType = keyTypeOf(createPublicKey(key.toString("pkcs8")), what);
  } catch (err) {
    if (err instanceof CryptoInputError) throw err;
    throw new CryptoInputError(`${what}: the key data is not a valid ${algorithm} key`, { cause: err });
  }
  if (keyType === "rsa" && key.size < MIN_RSA_BITS) {
    throw new CryptoInputError(
      `${what}: the RSA key has ${key.size} bits; at least ${MIN_RSA_BITS} are required (3072 or ed25519 recommended)`,
    );
  }
  return {
    keyType,
    fingerprint: key.fingerprint("sha256").toString(),
    ...(comment === "" ? {} : { comment }),
    normalized: `${algorithm} ${data}`,
  };
}

function checkAlgorithm(algorithm: string, line: string, what: string): void {
  if (ALGORITHMS.includes(algorithm)) return;
  if (algorithm === "ssh-dss") {
    throw new CryptoInputError(
      `${what}: DSA (ssh-dss) keys are not supported (OpenSSH disabled them): use ed25519, rsa or ecdsa`,
    );
  }
  if (algorithm.endsWith("-cert-v01@openssh.com")) {
    throw new CryptoInputError(`${what} is an SSH certificate, not a public key: give the key it certifies`);
  }
  if (algorithm.startsWith("sk-")) {
    throw new CryptoInputError(
      `${what}: security key (FIDO, ${algorithm}) keys are not supported: use ed25519, rsa or ecdsa`,
    );
  }
  // authorized_keys allows options before the key (`no-pty,command="..." ssh-ed25519 AAAA...`).
  if (ALGORITHMS.some((a) => line.includes(` ${a} `) || line.includes(`\t${a} `))) {
    throw new CryptoInputError(
      `${what} starts with authorized_keys options ("${algorithm}"): give the key only, starting with its algorithm`,
    );
  }
  throw new CryptoInputError(
    `${what}: unknown key type "${truncate(algorithm)}": expected ${ALGORITHMS.join(", ")}`,
  );
}

function holdsPrivateParts(blob: Buffer): boolean {
  try {
    sshpk.parsePrivateKey(blob, "rfc4253");
    return true;
  } catch {
    return false;
  }
}

/** The algorithm name recorded inside the key blob, as it would start an authorized_keys line. */
function blobAlgorithm(key: sshpk.Key): string | undefined {
  if (key.type === "rsa") return "ssh-rsa";
  if (key.type === "ed25519") return "ssh-ed25519";
  if (key.type === "ecdsa") return `ecdsa-sha2-${key.curve ?? ""}`;
  return undefined;
}

function truncate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}...` : s;
}
