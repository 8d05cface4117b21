/**
 * The SSH certificate authority of the reference server (docs/design.md section 5: an SSH certificate
 * authority holds a real key pair; host certificates are real OpenSSH certificates signed by it,
 * verifiable with `ssh-keygen -L`). Certificates are built and signed by sshpk (format: OpenSSH
 * PROTOCOL.certkeys); keys come from node:crypto.
 *
 * CA keys are ed25519 (what generateSshCaKeyPair makes) or ecdsa. RSA CA keys are refused: sshpk signs
 * certificates with them using SHA-1 (`ssh-rsa`), which OpenSSH 8.8 and later reject.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import sshpk from "sshpk";
import { CryptoInputError } from "./errors.js";
import { parseSshPublicKey } from "./ssh.js";

/** An SSH CA key pair. */
export interface SshCaKeyPair {
  /** Private key in OpenSSH format (`-----BEGIN OPENSSH PRIVATE KEY-----`), unencrypted. A secret. */
  privateKey: string;
  /** Public key as an authorized_keys line (`ssh-ed25519 AAAA... comment`), the form sshd's
   *  `TrustedUserCAKeys` and known_hosts' `@cert-authority` take. */
  publicKey: string;
}

/**
 * Generate an ed25519 SSH certificate authority key pair.
 *
 * @param comment comment of the public key line; default `tgw-ssh-ca`
 * @returns the private key (OpenSSH format) and the public key (authorized_keys line)
 */
export function generateSshCaKeyPair(comment = "tgw-ssh-ca"): SshCaKeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const key = sshpk.parsePrivateKey(privateKey.export({ format: "pem", type: "pkcs8" }).toString(), "pkcs8");
  key.comment = comment;
  return { privateKey: key.toString("openssh"), publicKey: key.toPublic().toString("ssh") };
}

/** What signSshHostCertificate signs (docs/api.md "SSH host certificate"). */
export interface SshHostCertificateRequest {
  /** The CA's private key: OpenSSH format or PEM (PKCS#8, SEC1), unencrypted, ed25519 or ecdsa. */
  caPrivateKey: string;
  /** The host's public key, an authorized_keys line (as parseSshPublicKey accepts). */
  publicKey: string;
  /** Host names and/or IP addresses the certificate is valid for; empty: valid for every host. */
  principals: readonly string[];
  /** Start of validity (docs/api.md `valid_after`); rounded down to whole seconds. */
  validAfter: Date;
  /** End of validity, exclusive (docs/api.md `valid_until`, OpenSSH `valid_before`); rounded down to whole
   *  seconds; must be after validAfter. */
  validBefore: Date;
  /** Serial number, 0..2^64-1; default: random. */
  serial?: bigint;
  /** Key identifier recorded in the certificate and logged by sshd (ssh-keygen -I). */
  keyId: string;
}

const MAX_SERIAL = (1n << 64n) - 1n;

/**
 * Sign an OpenSSH host certificate.
 *
 * @param request CA key, host key, principals, validity window, serial and key id (see the interface)
 * @returns the certificate as one authorized_keys-style line without comment, its type matching the host
 *   key: `ssh-ed25519-cert-v01@openssh.com AAAA...`, `ssh-rsa-cert-v01@openssh.com ...` or
 *   `ecdsa-sha2-nistp256-cert-v01@openssh.com ...` (384, 521); meant to be saved as a `-cert.pub` file
 * @throws CryptoInputError when the CA key does not parse, is encrypted or RSA; the public key does not
 *   parse (parseSshPublicKey's messages); a principal is empty or contains whitespace, a comma or a control
 *   character; a date is invalid, before 1970, or validBefore is not after validAfter; the serial is out of
 *   range
 */
export function signSshHostCertificate(request: SshHostCertificateRequest): string {
  const caKey = parseCaKey(request.caPrivateKey);
  const subjectKey = sshpk.parseKey(parseSshPublicKey(request.publicKey).normalized, "ssh");
  const principals = checkPrincipals(request.principals);
  const validFrom = wholeSeconds(request.validAfter, "valid_after");
  const validUntil = wholeSeconds(request.validBefore, "valid_until");
  if (validUntil.getTime() <= validFrom.getTime()) {
    throw new CryptoInputError("valid_until must be later than valid_after");
  }
  if (typeof request.keyId !== "string") throw new CryptoInputError("keyId must be a string");

  const placeholder = [sshpk.identityForHost(principals[0] ?? "any")];
  const cert = sshpk.createCertificate(placeholder, subjectKey, sshpk.identityForHost("ca"), caKey, {
    validFrom,
    validUntil,
    serial: serialBytes(request.serial),
  });
  // createCertificate signed with sshpk's default key id: set ours (and the principals), then re-sign.
  cert.subjects = principals.length === 0 ? noPrincipals() : principals.map((p) => sshpk.identityForHost(p));
  const openssh = cert.signatures.openssh;
  if (openssh === undefined) throw new Error("sshpk produced no OpenSSH signature block");
  (openssh as { keyId?: string }).keyId = request.keyId;
  for (let attempt = 1; ; attempt++) {
    cert.signWith(caKey);
    const line = cert.toString("openssh");
    try {
      assertRoundTrip(line, caKey.toPublic(), principals);
      return line;
    } catch (err) {
      // sshpk cannot read back about one ECDSA signature in 128 (it tells the curve by the size of r
      // and s, one of which is then a byte short); an ECDSA signature is random: sign again.
      if (caKey.type !== "ecdsa" || attempt === MAX_SIGNATURES || !(err instanceof Error)) throw err;
    }
  }
}

/** ECDSA signatures made before giving up on one that sshpk can read back (see above). */
const MAX_SIGNATURES = 8;

function parseCaKey(text: string): sshpk.PrivateKey {
  if (typeof text !== "string" || text.trim() === "") {
    throw new CryptoInputError("the SSH certificate authority's private key is empty");
  }
  let key: sshpk.PrivateKey;
  try {
    key = sshpk.parsePrivateKey(text, "auto");
  } catch (err) {
    const encrypted = err instanceof Error && err.name === "KeyEncryptedError";
    throw new CryptoInputError(
      encrypted
        ? "the SSH certificate authority's private key is encrypted: give it unencrypted"
        : "the SSH certificate authority's private key does not parse (expected OpenSSH or PEM format)",
      { cause: err },
    );
  }
  if (key.type !== "ed25519" && key.type !== "ecdsa") {
    throw new CryptoInputError(
      `the SSH certificate authority's key is ${key.type}: use ed25519 or ecdsa (RSA certificate signatures would use SHA-1, which OpenSSH rejects)`,
    );
  }
  return key;
}

function checkPrincipals(principals: readonly string[]): string[] {
  if (!Array.isArray(principals)) throw new CryptoInputError("principals must be a list of strings");
  return principals.map((p, i) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (typeof p !== "string" || p === "" || /[\s,\u0000-\u001f\u007f]/.test(p)) {
      throw new CryptoInputError(
        `principals[${i}] must be a non-empty host name or IP address without spaces, commas or control characters`,
      );
    }
    return p;
  });
}

function wholeSeconds(date: Date, field: string): Date {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new CryptoInputError(`${field} must be a valid date`);
  }
  if (date.getTime() < 0) throw new CryptoInputError(`${field} must not be before 1970-01-01T00:00:00Z`);
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** sshpk writes the serial's bytes as given: it must be exactly 8 (uint64, big-endian). */
function serialBytes(serial: bigint | undefined): Buffer {
  if (serial === undefined) return randomBytes(8);
  if (typeof serial !== "bigint" || serial < 0n || serial > MAX_SERIAL) {
    throw new CryptoInputError("serial must be an integer from 0 to 2^64-1");
  }
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(serial);
  return buf;
}

/**
 * An empty principal list in the eyes of sshpk's OpenSSH writer. OpenSSH spells "valid for every host"
 * as a zero-length principal list (PROTOCOL.certkeys), but sshpk reads the certificate type from
 * `subjects[0]` and writes one principal per `forEach` item, so it cannot write one. This list has a host
 * identity at [0] and iterates as empty. It leans on sshpk 1.18's writer: assertRoundTrip cannot tell an
 * empty list from a literal "*" (sshpk reads both back as "*"), so test/crypto/ssh-certificate.test.ts
 * asserts `Principals: (none)` with ssh-keygen -L.
 */
function noPrincipals(): sshpk.Identity[] {
  class TypeOnly extends Array<sshpk.Identity> {
    override forEach(): void {}
  }
  const list = new TypeOnly();
  list.push(sshpk.identityForHost("*"));
  return list;
}

/** Parse the certificate back: signed by the CA, a host certificate, with our principals (see noPrincipals
 *  for the one case this cannot tell apart). Cheap insurance against a change in sshpk. */
function assertRoundTrip(line: string, caPublic: sshpk.Key, principals: string[]): void {
  const cert = sshpk.parseCertificate(line, "openssh");
  const got = cert.subjects.map((s) => `${s.type}:${s.hostname ?? ""}`);
  // sshpk reads an empty principal list back as the single host "*".
  const want = (principals.length === 0 ? ["*"] : principals).map((p) => `host:${p}`);
  if (!cert.isSignedByKey(caPublic) || JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error("the SSH host certificate written by sshpk did not read back as signed: a bug");
  }
}
