/**
 * The plugin's own TLS certificate: a fresh self-signed ECDSA P-256 certificate per process, valid for
 * the DNS name the go-plugin client expects (`localhost`), usable for server and client auth. It is
 * never written to disk; Terraform learns it from the handshake line.
 *
 * go-plugin's client trusts the certificate of the handshake line as a CA for the name `localhost`, so
 * it is one (RFC 5280): basic constraints `cA` (critical), key usage digitalSignature, keyEncipherment
 * and keyCertSign (critical), extended key usage serverAuth and clientAuth, the subject alternative
 * name `DNS:<host>`, subject and issuer `CN=<host>, O=tunnelgw`, valid from a minute ago for 30 days.
 * node:crypto makes the key and signs; the certificate's DER is written by ./der.ts.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import {
  bitString,
  boolean,
  explicit,
  implicit,
  integer,
  namedBits,
  octetString,
  oid,
  printableString,
  sequence,
  setOf,
  time,
} from "./der.js";

/** A certificate and its key. */
export interface OwnCertificate {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
  /** The certificate as DER. */
  der: Buffer;
}

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** RFC 5280 KeyUsage bits. */
const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5 };

/** One Extension: `extnID`, `critical` (written only when true, DER omits the default), `extnValue`. */
function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

/**
 * A self-signed certificate for `host` (a DNS name of PrintableString characters), valid from a minute
 * before `now` (ms since the epoch) for 30 days, with a fresh P-256 key and a random positive 64-bit
 * serial number; signed with ECDSA SHA-256.
 * @throws RangeError when `host` is not a PrintableString.
 */
export function selfSignedCertificate(host: string, now = Date.now()): OwnCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const serial = randomBytes(8);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x10; // positive, and eight bytes long
  const name = sequence(
    setOf(sequence(oid(OID.commonName), printableString(host))),
    setOf(sequence(oid(OID.organization), printableString("tunnelgw"))),
  );
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const extensions = sequence(
    extension(OID.basicConstraints, true, sequence(boolean(true))),
    extension(
      OID.keyUsage,
      true,
      namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment, KEY_USAGE.keyCertSign]),
    ),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
    extension(OID.subjectAltName, false, sequence(implicit(2, Buffer.from(host, "ascii")))),
  );
  const tbs = sequence(
    explicit(0, integer(2)), // v3
    integer(serial),
    algorithm,
    name,
    sequence(time(new Date(now - 60_000)), time(new Date(now + 30 * 86_400_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(3, extensions),
  );
  const der = sequence(tbs, algorithm, bitString(sign("sha256", tbs, privateKey)));
  const base64 = der.toString("base64").replace(/.{64}/g, "$&\n");
  return {
    certPem: `-----BEGIN CERTIFICATE-----\n${base64.replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    der,
  };
}
