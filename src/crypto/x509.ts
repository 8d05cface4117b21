/**
 * Reading an uploaded TLS certificate chain (docs/api.md "TLS certificate"; docs/design.md section 5: every
 * response field is parsed from the PEM for real). Parsing uses @peculiar/x509; the chain order check
 * and the public key type use node:crypto, which verifies signatures synchronously.
 *
 * Rules for accepted chains (docs/api.md leaves them "not shown"; these are ours):
 * - one or more `CERTIFICATE` PEM blocks, leaf first, each followed by the certificate that issued it
 *   (issuer name matches and the signature verifies); the last one need not be a root;
 * - no other kind of PEM block (a private key belongs in `private_key_pem`);
 * - the leaf's public key is rsa, ecdsa (P-256/384/521) or ed25519;
 * - validity dates are reported, not enforced: an expired certificate is accepted.
 */

import { type KeyObject, X509Certificate as NodeX509Certificate } from "node:crypto";
import {
  ExtendedKeyUsageExtension,
  KeyUsagesExtension,
  type Name,
  SubjectAlternativeNameExtension,
  X509Certificate,
} from "@peculiar/x509";
import type { TlsCertificate } from "../model/types.gen.js";
import { CryptoInputError } from "./errors.js";
import { keyTypeOf } from "./key-type.js";
import { memoByText } from "./memo.js";
import { readPemBlocks } from "./pem.js";
import { extendedKeyUsageName, keyUsageNames } from "./x509-usages.js";

/**
 * The fields of docs/api.md "TLS certificate" that are derived from the leaf certificate, with the API's
 * names and types as generated from schemas/kinds/tls_certificate.schema.json. Text fields are `""`
 * when the certificate does not have them. Value formats:
 * - `subject_common_name`, `issuer_common_name`: the first CN; `subject_organization`,
 *   `subject_organizational_unit`, `subject_locality`, `subject_province`, `subject_country`: the
 *   first O, OU, L, ST and C.
 * - `subject_alternative_names`: DNS names (wildcards kept as written) and IP addresses (IPv4
 *   dotted, IPv6 compressed lower-case), in certificate order.
 * - `not_before`, `not_after`: RFC 3339 UTC with second precision, e.g. `2026-01-01T00:00:00Z`.
 * - `key_usages` in bit order, `extended_key_usages` in certificate order (names: x509-usages.ts);
 *   `[]` without the extension.
 * - `private_key_type`: the type of the leaf's public key, hence of the matching private key.
 * - `serial_number`: lower-case hex of its unsigned value, two digits per byte, no leading zero
 *   bytes (`00` for zero): what `openssl x509 -noout -serial` prints, lower-cased.
 */
export type CertificateInfo = Omit<
  TlsCertificate,
  // Not from the certificate: set by the server or the caller.
  "id" | "uri" | "created_at" | "description" | "metadata" | "certificate_pem" | "issued_at"
>;

/**
 * Parse and check a PEM certificate chain and describe its leaf.
 *
 * @param pem PEM text, leaf first (see the rules above)
 * @param what how to name the input in messages; defaults to `certificate_pem`
 * @returns the docs/api.md fields of the leaf
 * @throws CryptoInputError saying what is wrong: not a string, empty, no PEM block, a truncated or
 *   non-certificate block, a certificate that does not parse, a chain out of order, an unsupported
 *   leaf key type
 */
export function parseCertificateChain(pem: string, what = "certificate_pem"): CertificateInfo {
  return describeChain(pem, what);
}

// Reading the leaf's extensions is most of the cost (ASN.1): once per text (see ./memo.ts).
const describeChain = memoByText((pem: string, what: string): CertificateInfo => {
  const leaf = readChain(pem, what)[0];
  if (leaf === undefined) throw new Error("unreachable: readChain returned no certificate");
  return describeLeaf(leaf.parsed, leaf.node, what);
});

/**
 * The public key of a chain's leaf, after the same checks as parseCertificateChain.
 *
 * @param pem PEM certificate chain, leaf first
 * @param what how to name the input in messages; defaults to `certificate_pem`
 * @returns a node:crypto public KeyObject
 * @throws CryptoInputError as parseCertificateChain
 */
export function leafPublicKey(pem: string, what = "certificate_pem"): KeyObject {
  const leaf = readChain(pem, what)[0];
  if (leaf === undefined) throw new Error("unreachable: readChain returned no certificate");
  return leaf.node.publicKey;
}

interface ChainEntry {
  parsed: X509Certificate;
  node: NodeX509Certificate;
}

/** Every certificate of the chain, checked against the rules above; never empty. */
const readChain = memoByText(readChainOnce);

/**
 * Both parses of one certificate, by its DER bytes in base64: distinct chains repeat their issuers
 * (one CA signs many leaves), and the ASN.1 parse is the cost of reading a chain (see ./memo.ts).
 */
const parseCertificate = memoByText((base64: string): ChainEntry => {
  const der = Buffer.from(base64, "base64");
  return { parsed: new X509Certificate(der), node: new NodeX509Certificate(der) };
});

function readChainOnce(pem: string, what: string): ChainEntry[] {
  if (typeof pem !== "string") throw new CryptoInputError(`${what} must be a string of PEM text`);
  if (pem.trim() === "") throw new CryptoInputError(`${what} is empty: expected a PEM certificate chain`);
  const blocks = readPemBlocks(pem, what);
  if (blocks.length === 0) {
    throw new CryptoInputError(
      `${what} contains no PEM block: expected "-----BEGIN CERTIFICATE-----" (leaf first, then its issuers)`,
    );
  }
  const certs = blocks.map((block): ChainEntry => {
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
      throw new CryptoInputError(`${what}: PEM block ${block.index} is not a valid X.509 certificate`, {
        cause: err,
      });
    }
  });
  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i]?.node;
    const issuer = certs[i + 1]?.node;
    if (child === undefined || issuer === undefined) continue;
    if (!child.checkIssued(issuer) || !child.verify(issuer.publicKey)) {
      throw new CryptoInputError(
        `${what}: certificate ${i + 1} was not issued by certificate ${i + 2}: the chain must be in order, leaf first, each certificate followed by its issuer`,
      );
    }
  }
  return certs;
}

function describeLeaf(cert: X509Certificate, node: NodeX509Certificate, what: string): CertificateInfo {
  const san = cert.getExtension(SubjectAlternativeNameExtension);
  const dnsNames: string[] = [];
  const ips: string[] = [];
  for (const name of san?.names.items ?? []) {
    if (name.type === "dns") dnsNames.push(name.value);
    else if (name.type === "ip") ips.push(name.value);
  }
  return {
    subject_common_name: first(cert.subjectName, "CN"),
    subject_alternative_names: { dns_names: dnsNames, ips },
    not_before: rfc3339(cert.notBefore),
    not_after: rfc3339(cert.notAfter),
    key_usages: keyUsageNames(cert.getExtension(KeyUsagesExtension)?.usages ?? 0),
    extended_key_usages: (cert.getExtension(ExtendedKeyUsageExtension)?.usages ?? []).map((oid) =>
      extendedKeyUsageName(String(oid)),
    ),
    private_key_type: keyTypeOf(node.publicKey, `${what}: the leaf certificate's public key`),
    issuer_common_name: first(cert.issuerName, "CN"),
    serial_number: serialHex(cert.serialNumber),
    subject_organization: first(cert.subjectName, "O"),
    subject_organizational_unit: first(cert.subjectName, "OU"),
    subject_locality: first(cert.subjectName, "L"),
    subject_province: first(cert.subjectName, "ST"),
    subject_country: first(cert.subjectName, "C"),
  };
}

function first(name: Name, attribute: string): string {
  return name.getField(attribute)[0] ?? "";
}

/** RFC 3339 without milliseconds: X.509 times have second precision. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** @peculiar/x509 already drops the DER sign byte (`00c0...` -> `c0...`); the API wants lower case. */
function serialHex(hex: string): string {
  return hex.toLowerCase();
}
