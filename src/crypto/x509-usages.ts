/**
 * Names of X.509 key usages and extended key usages as the API reports them (docs/api.md "TLS certificate"
 * `key_usages`, `extended_key_usages`): snake_case, following the names of Go's crypto/x509 (which the
 * production service is written against) rather than the RFC's camelCase.
 *
 * Key usage bits (RFC 5280 4.2.1.3), in bit order:
 *
 * | bit | RFC 5280 name    | API name             |
 * |-----|------------------|----------------------|
 * | 0   | digitalSignature | `digital_signature`  |
 * | 1   | nonRepudiation   | `content_commitment` |
 * | 2   | keyEncipherment  | `key_encipherment`   |
 * | 3   | dataEncipherment | `data_encipherment`  |
 * | 4   | keyAgreement     | `key_agreement`      |
 * | 5   | keyCertSign      | `cert_sign`          |
 * | 6   | cRLSign          | `crl_sign`           |
 * | 7   | encipherOnly     | `encipher_only`      |
 * | 8   | decipherOnly     | `decipher_only`      |
 *
 * Extended key usages (RFC 5280 4.2.1.12) by OID: see EXTENDED_KEY_USAGE_OIDS. An OID not in the
 * table is reported as its dotted form (e.g. `1.3.6.1.4.1.99999.1`) so that nothing is dropped.
 */
import { KeyUsageFlags } from "@peculiar/x509";

/** An API key usage name (table above). */
export type KeyUsageName =
  | "digital_signature"
  | "content_commitment"
  | "key_encipherment"
  | "data_encipherment"
  | "key_agreement"
  | "cert_sign"
  | "crl_sign"
  | "encipher_only"
  | "decipher_only";

/** API key usage name -> @peculiar/x509 flag, in bit order (the order `key_usages` is reported in). */
export const KEY_USAGE_FLAGS: ReadonlyArray<readonly [KeyUsageName, KeyUsageFlags]> = [
  ["digital_signature", KeyUsageFlags.digitalSignature],
  ["content_commitment", KeyUsageFlags.nonRepudiation],
  ["key_encipherment", KeyUsageFlags.keyEncipherment],
  ["data_encipherment", KeyUsageFlags.dataEncipherment],
  ["key_agreement", KeyUsageFlags.keyAgreement],
  ["cert_sign", KeyUsageFlags.keyCertSign],
  ["crl_sign", KeyUsageFlags.cRLSign],
  ["encipher_only", KeyUsageFlags.encipherOnly],
  ["decipher_only", KeyUsageFlags.decipherOnly],
];

/** A known API extended key usage name. */
export type ExtendedKeyUsageName =
  | "any"
  | "server_auth"
  | "client_auth"
  | "code_signing"
  | "email_protection"
  | "ipsec_end_system"
  | "ipsec_tunnel"
  | "ipsec_user"
  | "time_stamping"
  | "ocsp_signing"
  | "microsoft_server_gated_crypto"
  | "netscape_server_gated_crypto"
  | "microsoft_commercial_code_signing"
  | "microsoft_kernel_code_signing";

/** API extended key usage name -> OID. */
export const EXTENDED_KEY_USAGE_OIDS: Readonly<Record<ExtendedKeyUsageName, string>> = {
  any: "2.5.29.37.0",
  server_auth: "1.3.6.1.5.5.7.3.1",
  client_auth: "1.3.6.1.5.5.7.3.2",
  code_signing: "1.3.6.1.5.5.7.3.3",
  email_protection: "1.3.6.1.5.5.7.3.4",
  ipsec_end_system: "1.3.6.1.5.5.7.3.5",
  ipsec_tunnel: "1.3.6.1.5.5.7.3.6",
  ipsec_user: "1.3.6.1.5.5.7.3.7",
  time_stamping: "1.3.6.1.5.5.7.3.8",
  ocsp_signing: "1.3.6.1.5.5.7.3.9",
  microsoft_server_gated_crypto: "1.3.6.1.4.1.311.10.3.3",
  netscape_server_gated_crypto: "2.16.840.1.113730.4.1",
  microsoft_commercial_code_signing: "1.3.6.1.4.1.311.2.1.22",
  microsoft_kernel_code_signing: "1.3.6.1.4.1.311.61.1.1",
};

const NAME_BY_OID: ReadonlyMap<string, ExtendedKeyUsageName> = new Map(
  Object.entries(EXTENDED_KEY_USAGE_OIDS).map(([name, oid]) => [oid, name as ExtendedKeyUsageName]),
);

/**
 * API names of the key usage bits set in `flags`, in bit order.
 * @param flags the KeyUsage bit set as @peculiar/x509 decodes it (`KeyUsagesExtension.usages`)
 */
export function keyUsageNames(flags: number): KeyUsageName[] {
  return KEY_USAGE_FLAGS.filter(([, flag]) => (flags & flag) !== 0).map(([name]) => name);
}

/**
 * API name of an extended key usage OID: the table name, or the dotted OID itself when unknown.
 * @param oid dotted OID, e.g. `1.3.6.1.5.5.7.3.1`
 */
export function extendedKeyUsageName(oid: string): string {
  return NAME_BY_OID.get(oid) ?? oid;
}
