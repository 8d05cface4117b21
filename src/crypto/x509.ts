/**
 * Reading an uploaded TLS certificate chain (docs/api.md "TLS certificate"): the PEM blocks, each
 * certificate parsed and each link of the chain verified with node:crypto (OpenSSL), synchronously.
 * Describing the leaf's fields takes ASN.1 decoding of its extensions: src/server/certificate-info.ts, which alone
 * loads @peculiar/x509, so that checking a configuration (`tgw validate`, `plan`) does not pay for it.
 *
 * Rules for accepted chains (docs/api.md leaves them "not shown"; these are ours):
 * - one or more `CERTIFICATE` PEM blocks, leaf first, each followed by the certificate that issued it
 *   (issuer name matches and the signature verifies); the last one need not be a root;
 * - no other kind of PEM block (a private key belongs in `private_key_pem`);
 * - the leaf's public key is rsa, ecdsa (P-256/384/521) or ed25519;
 * - validity dates are reported, not enforced: an expired certificate is accepted.
 */

import { type KeyObject, X509Certificate } from "node:crypto";
import { CryptoInputError } from "./errors.js";
import { keyTypeOf } from "./key-type.js";
import { memoByText } from "./memo.js";
import { type PemBlock, readPemBlocks } from "./pem.js";

/**
 * Check a PEM certificate chain against the rules above, without describing it (what the
 * `pem-certificate-chain` format of the configuration's validation needs).
 *
 * @param pem PEM text, leaf first
 * @param what how to name the input in messages; defaults to `certificate_pem`
 * @throws CryptoInputError saying what is wrong: not a string, empty, no PEM block, a truncated or
 *   non-certificate block, a certificate that does not parse, a chain out of order, an unsupported
 *   leaf key type
 */
export function checkCertificateChain(pem: string, what = "certificate_pem"): void {
  readChain(pem, what);
}

/**
 * The public key of a chain's leaf, after the same checks as checkCertificateChain.
 *
 * @param pem PEM certificate chain, leaf first
 * @param what how to name the input in messages; defaults to `certificate_pem`
 * @returns a node:crypto public KeyObject
 * @throws CryptoInputError as checkCertificateChain
 */
export function leafPublicKey(pem: string, what = "certificate_pem"): KeyObject {
  return leafOf(readChain(pem, what)).publicKey;
}

/**
 * Every certificate of a chain, leaf first, checked against the rules above; never empty. Kept by
 * text (see ./memo.ts): a configuration names a certificate in several places.
 *
 * @throws CryptoInputError as checkCertificateChain
 */
export const readChain: (pem: string, what: string) => X509Certificate[] = memoByText(readChainOnce);

/** The first certificate of a chain from readChain. */
export function leafOf(chain: X509Certificate[]): X509Certificate {
  const leaf = chain[0];
  if (leaf === undefined) throw new Error("unreachable: readChain returned no certificate");
  return leaf;
}

function readChainOnce(pem: string, what: string): X509Certificate[] {
  if (typeof pem !== "string") throw new CryptoInputError(`${what} must be a string of PEM text`);
  if (pem.trim() === "") throw new CryptoInputError(`${what} is empty: expected a PEM certificate chain`);
  const blocks = readPemBlocks(pem, what);
  if (blocks.length === 0) {
    throw new CryptoInputError(
      `${what} contains no PEM block: expected "-----BEGIN CERTIFICATE-----" (leaf first, then its issuers)`,
    );
  }
  const certs = blocks.map((block) => readCertificate(block, what));
  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i];
    const issuer = certs[i + 1];
    if (child === undefined || issuer === undefined) continue;
    if (!child.checkIssued(issuer) || !child.verify(issuer.publicKey)) {
      throw new CryptoInputError(
        `${what}: certificate ${i + 1} was not issued by certificate ${i + 2}: the chain must be in order, leaf first, each certificate followed by its issuer`,
      );
    }
  }
  keyTypeOf(leafOf(certs).publicKey, `${what}: the leaf certificate's public key`);
  return certs;
}

function readCertificate(block: PemBlock, what: string): X509Certificate {
  if (block.label !== "CERTIFICATE") {
    const hint = block.label.includes("PRIVATE KEY")
      ? ": the private key goes in private_key_pem, not in the chain"
      : "";
    throw new CryptoInputError(
      `${what}: PEM block ${block.index} is a ${block.label}, not a CERTIFICATE${hint}`,
    );
  }
  try {
    return parseCertificate(block.der.toString("base64"), what);
  } catch (err) {
    throw notACertificate(block.index, what, err);
  }
}

/**
 * One certificate, by its DER bytes in base64: distinct chains repeat their issuers (one CA signs many
 * leaves), so each is parsed once (see ./memo.ts).
 */
const parseCertificate = memoByText((base64: string): X509Certificate => {
  return new X509Certificate(Buffer.from(base64, "base64"));
});

/** The error of a PEM block that does not parse as a certificate. */
export function notACertificate(index: number, what: string, cause: unknown): CryptoInputError {
  return new CryptoInputError(`${what}: PEM block ${index} is not a valid X.509 certificate`, { cause });
}
