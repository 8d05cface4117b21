/**
 * Describing a TLS certificate chain's leaf with the fields of docs/api.md "TLS certificate" (docs/design.md
 * section 5: every response field is parsed from the PEM for real). The chain is read and checked by
 * ../crypto/x509.ts (node:crypto); the leaf's names and extensions are decoded with @peculiar/x509,
 * which only this module of the reference server loads (a configuration check never needs it).
 */

import type { KeyObject } from "node:crypto";
import {
  ExtendedKeyUsageExtension,
  KeyUsagesExtension,
  type Name,
  SubjectAlternativeNameExtension,
  X509Certificate,
} from "@peculiar/x509";
import { keyTypeOf } from "../crypto/key-type.js";
import { memoByText } from "../crypto/memo.js";
import { leafOf, notACertificate, readChain } from "../crypto/x509.js";
import { extendedKeyUsageName, keyUsageNames } from "../crypto/x509-usages.js";
import type { TlsCertificate } from "../model/types.gen.js";

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
 * - `key_usages` in bit order, `extended_key_usages` in certificate order (names: ../crypto/x509-usages.ts);
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
 * Parse and check a PEM certificate chain (the rules of ./x509.ts) and describe its leaf.
 *
 * @param pem PEM text, leaf first
 * @param what how to name the input in messages; defaults to `certificate_pem`
 * @returns the docs/api.md fields of the leaf
 * @throws CryptoInputError saying what is wrong: not a string, empty, no PEM block, a truncated or
 *   non-certificate block, a certificate that does not parse, a chain out of order, an unsupported
 *   leaf key type
 */
export function parseCertificateChain(pem: string, what = "certificate_pem"): CertificateInfo {
  return describeChain(pem, what);
}

// Reading the leaf's extensions is most of the cost (ASN.1): once per text (see ../crypto/memo.ts).
const describeChain = memoByText((pem: string, what: string): CertificateInfo => {
  const leaf = leafOf(readChain(pem, what));
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(leaf.raw);
  } catch (err) {
    throw notACertificate(1, what, err);
  }
  return describeLeaf(cert, leaf.publicKey, what);
});

function describeLeaf(cert: X509Certificate, publicKey: KeyObject, what: string): CertificateInfo {
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
    private_key_type: keyTypeOf(publicKey, `${what}: the leaf certificate's public key`),
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
