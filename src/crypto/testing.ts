/**
 * Test and example helpers: real certificates and keys made on the fly with @peculiar/x509 and the
 * node:crypto WebCrypto API (certificates) or node:crypto + sshpk (SSH keys). Not for production use:
 * keys are unprotected and validity is whatever the caller asks. Kept out of index.ts so that server and
 * CLI code do not import it by accident; import `src/crypto/testing.js` directly.
 */
import { createPrivateKey, generateKeyPairSync, KeyObject, webcrypto } from "node:crypto";
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsageExtension,
  type Extension,
  type JsonGeneralName,
  type JsonName,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from "@peculiar/x509";
import sshpk from "sshpk";
import { type KeyType, keyTypeOf } from "./key-type.js";
import {
  EXTENDED_KEY_USAGE_OIDS,
  type ExtendedKeyUsageName,
  KEY_USAGE_FLAGS,
  type KeyUsageName,
} from "./x509-usages.js";

// node's WebCrypto, passed explicitly rather than set as @peculiar/x509's global provider.
const provider = webcrypto;
type CryptoKey = webcrypto.CryptoKey;

/** A certificate authority to sign test certificates with. */
export interface TestCa {
  /** The CA certificate (one PEM block). */
  certificatePem: string;
  /** Its private key, PKCS#8 PEM. */
  privateKeyPem: string;
}

/** Options of createTestCa. */
export interface TestCaOptions {
  /** Subject and issuer CN; default `tgw test CA`. */
  commonName?: string;
  /** Default `ecdsa` (P-256). */
  keyType?: KeyType;
  /** Default: one hour ago. */
  notBefore?: Date;
  /** Default: notBefore + 10 years. */
  notAfter?: Date;
  /** The CA that signs this one (making it an intermediate); default: self-signed (a root). */
  issuer?: TestCa;
}

/** Options of createTestCertificate. Subject fields left out are absent from the certificate. */
export interface TestCertificateOptions {
  /** Subject CN; default `test.example.com`; `""` for none. */
  commonName?: string;
  organization?: string;
  organizationalUnit?: string;
  locality?: string;
  province?: string;
  /** Two-letter country code. */
  country?: string;
  /** SubjectAltName DNS names (wildcards allowed); default `[commonName]` when there is a CN. */
  dnsNames?: string[];
  /** SubjectAltName IP addresses (IPv4 or IPv6); default none. */
  ips?: string[];
  /** Default: one hour ago. */
  notBefore?: Date;
  /** Default: notBefore + 90 days. */
  notAfter?: Date;
  /** Leaf key type; default `ecdsa` (P-256). */
  keyType?: KeyType;
  /** Key usage names (x509-usages.ts); default `digital_signature`, plus `key_encipherment` for rsa;
   *  `[]` leaves the extension out. */
  keyUsages?: KeyUsageName[];
  /** Extended key usage names or dotted OIDs; default `["server_auth"]`; `[]` leaves the extension out. */
  extendedKeyUsages?: (ExtendedKeyUsageName | string)[];
  /** Serial number in hex; default random. */
  serialNumber?: string;
  /** Who signs the leaf: an existing CA, `"self"` for a self-signed leaf, or (default) a fresh CA. */
  issuer?: TestCa | "self";
  /** Key type of the fresh CA when `issuer` is not given; default `ecdsa`. */
  caKeyType?: KeyType;
}

/** A test certificate and its key. */
export interface TestCertificate {
  /** Leaf first, then the CA (just the leaf when self-signed); ends with a newline. */
  certificatePem: string;
  /** The leaf's private key, PKCS#8 PEM. */
  privateKeyPem: string;
  /** The CA certificate (the leaf itself when self-signed). */
  caPem: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Make a CA certificate: basicConstraints CA (critical), key usages cert_sign, crl_sign and
 * digital_signature; self-signed (a root) unless `issuer` is given (an intermediate).
 * @returns the CA certificate and its private key (PEM)
 */
export async function createTestCa(options: TestCaOptions = {}): Promise<TestCa> {
  const keyType = options.keyType ?? "ecdsa";
  const keys = await generateKeys(keyType);
  const notBefore = options.notBefore ?? new Date(Date.now() - HOUR_MS);
  const name: JsonName = [{ CN: [options.commonName ?? "tgw test CA"] }];
  const issuerCert =
    options.issuer === undefined ? undefined : new X509Certificate(options.issuer.certificatePem);
  const signer =
    options.issuer === undefined
      ? { key: keys.privateKey, type: keyType }
      : await importPrivateKey(options.issuer.privateKeyPem);
  const extensions: Extension[] = [
    new BasicConstraintsExtension(true, undefined, true),
    new KeyUsagesExtension(
      KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature,
      true,
    ),
    await SubjectKeyIdentifierExtension.create(keys.publicKey, false, provider),
  ];
  if (issuerCert !== undefined) {
    extensions.push(await AuthorityKeyIdentifierExtension.create(issuerCert, false, provider));
  }
  const cert = await X509CertificateGenerator.create(
    {
      subject: name,
      issuer: issuerCert?.subjectName ?? name,
      notBefore,
      notAfter: options.notAfter ?? new Date(notBefore.getTime() + 3650 * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: signer.key,
      signingAlgorithm: signingAlgorithm(signer.type),
      extensions,
    },
    provider,
  );
  return { certificatePem: toPem(cert), privateKeyPem: exportPrivateKey(keys.privateKey) };
}

/**
 * Make a leaf certificate with the chosen subject, SANs, validity, key type and usages, signed by a CA
 * (a fresh one by default) or by itself.
 * @returns the chain (leaf first), the leaf's private key and the CA certificate, all PEM
 */
export async function createTestCertificate(options: TestCertificateOptions = {}): Promise<TestCertificate> {
  const keyType = options.keyType ?? "ecdsa";
  const keys = await generateKeys(keyType);
  const commonName = options.commonName ?? "test.example.com";
  const notBefore = options.notBefore ?? new Date(Date.now() - HOUR_MS);
  const selfSigned = options.issuer === "self";
  const ca = selfSigned
    ? undefined
    : typeof options.issuer === "object"
      ? options.issuer
      : await createTestCa({ keyType: options.caKeyType ?? "ecdsa" });
  const issuerCert = ca === undefined ? undefined : new X509Certificate(ca.certificatePem);
  const signer =
    ca === undefined ? { key: keys.privateKey, type: keyType } : await importPrivateKey(ca.privateKeyPem);
  const subject = subjectName(commonName, options);

  const extensions: Extension[] = [new BasicConstraintsExtension(false, undefined, true)];
  const usages =
    options.keyUsages ??
    (keyType === "rsa" ? ["digital_signature", "key_encipherment"] : ["digital_signature"]);
  if (usages.length > 0) extensions.push(new KeyUsagesExtension(keyUsageFlags(usages), true));
  const ekus = options.extendedKeyUsages ?? ["server_auth"];
  if (ekus.length > 0) {
    extensions.push(
      new ExtendedKeyUsageExtension(
        ekus.map((e) => EXTENDED_KEY_USAGE_OIDS[e as ExtendedKeyUsageName] ?? e),
        false,
      ),
    );
  }
  const sans: JsonGeneralName[] = [
    ...(options.dnsNames ?? (commonName === "" ? [] : [commonName])).map((value) => ({
      type: "dns" as const,
      value,
    })),
    ...(options.ips ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  if (sans.length > 0) extensions.push(new SubjectAlternativeNameExtension(sans, false));
  extensions.push(await SubjectKeyIdentifierExtension.create(keys.publicKey, false, provider));
  if (issuerCert !== undefined) {
    extensions.push(await AuthorityKeyIdentifierExtension.create(issuerCert, false, provider));
  }

  const cert = await X509CertificateGenerator.create(
    {
      ...(options.serialNumber === undefined ? {} : { serialNumber: options.serialNumber }),
      subject,
      issuer: issuerCert?.subjectName ?? subject,
      notBefore,
      notAfter: options.notAfter ?? new Date(notBefore.getTime() + 90 * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: signer.key,
      signingAlgorithm: signingAlgorithm(signer.type),
      extensions,
    },
    provider,
  );
  const leafPem = toPem(cert);
  return {
    certificatePem: ca === undefined ? leafPem : `${leafPem}${ca.certificatePem}`,
    privateKeyPem: exportPrivateKey(keys.privateKey),
    caPem: ca?.certificatePem ?? leafPem,
  };
}

/** An SSH key pair for tests. */
export interface TestSshKeyPair {
  /** authorized_keys line: `<algorithm> <base64> <comment>`. */
  publicKey: string;
  /** OpenSSH-format private key, unencrypted. */
  privateKey: string;
}

/**
 * Make an SSH key pair: ed25519, rsa (3072 bits) or ecdsa (P-256 by default).
 * @param type key type
 * @param options `comment` (default `tgw-test`), `ecdsaCurve` 256, 384 or 521 (default 256)
 */
export function createSshKeyPair(
  type: KeyType,
  options: { comment?: string; ecdsaCurve?: 256 | 384 | 521 } = {},
): TestSshKeyPair {
  const { privateKey } =
    type === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 3072 })
      : type === "ecdsa"
        ? generateKeyPairSync("ec", { namedCurve: `P-${options.ecdsaCurve ?? 256}` })
        : generateKeyPairSync("ed25519");
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const key = sshpk.parsePrivateKey(pem, "pkcs8");
  key.comment = options.comment ?? "tgw-test";
  return { publicKey: key.toPublic().toString("ssh"), privateKey: key.toString("openssh") };
}

// --- helpers ---

function subjectName(commonName: string, o: TestCertificateOptions): JsonName {
  const name: JsonName = [];
  const add = (attribute: string, value: string | undefined) => {
    if (value !== undefined && value !== "") name.push({ [attribute]: [value] });
  };
  add("C", o.country);
  add("ST", o.province);
  add("L", o.locality);
  add("O", o.organization);
  add("OU", o.organizationalUnit);
  add("CN", commonName);
  return name;
}

function keyUsageFlags(names: KeyUsageName[]): KeyUsageFlags {
  let flags = 0;
  for (const name of names) {
    const entry = KEY_USAGE_FLAGS.find(([n]) => n === name);
    if (entry === undefined) throw new Error(`unknown key usage ${name}`);
    flags |= entry[1];
  }
  return flags;
}

type KeyAlgorithm = webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams | webcrypto.Algorithm;

function keyAlgorithm(type: KeyType): KeyAlgorithm {
  if (type === "rsa") {
    return {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    };
  }
  if (type === "ecdsa") return { name: "ECDSA", namedCurve: "P-256" };
  return { name: "Ed25519" };
}

function signingAlgorithm(type: KeyType): webcrypto.Algorithm | webcrypto.EcdsaParams {
  if (type === "rsa") return { name: "RSASSA-PKCS1-v1_5" };
  if (type === "ecdsa") return { name: "ECDSA", hash: "SHA-256" };
  return { name: "Ed25519" };
}

async function generateKeys(type: KeyType): Promise<webcrypto.CryptoKeyPair> {
  return (await provider.subtle.generateKey(keyAlgorithm(type), true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
}

/** A PEM private key as a WebCrypto signing key, with its type (for the signature algorithm). */
async function importPrivateKey(pem: string): Promise<{ key: CryptoKey; type: KeyType }> {
  const keyObject = createPrivateKey(pem);
  const type = keyTypeOf(keyObject, "the CA private key");
  const curve = keyObject.asymmetricKeyDetails?.namedCurve;
  const algorithm: KeyAlgorithm =
    type === "ecdsa"
      ? { name: "ECDSA", namedCurve: WEBCRYPTO_CURVES[curve ?? ""] ?? "P-256" }
      : keyAlgorithm(type);
  const der = keyObject.export({ format: "der", type: "pkcs8" });
  const key = await provider.subtle.importKey("pkcs8", der, algorithm, false, ["sign"]);
  return { key, type };
}

const WEBCRYPTO_CURVES: Readonly<Record<string, string>> = {
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521",
};

function exportPrivateKey(key: CryptoKey): string {
  return KeyObject.from(key).export({ format: "pem", type: "pkcs8" }).toString();
}

function toPem(cert: X509Certificate): string {
  return `${cert.toString("pem")}\n`;
}
