/**
 * The plugin's own TLS certificate: a fresh self-signed ECDSA P-256 certificate per process, valid for
 * the DNS name the go-plugin client expects (`localhost`), usable for server and client auth. It is
 * never written to disk; Terraform learns it from the handshake line.
 */
import { randomBytes, webcrypto } from "node:crypto";
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";

/** A certificate and its key. */
export interface OwnCertificate {
  certPem: string;
  /** PKCS#8 PEM. */
  keyPem: string;
  /** The certificate as DER. */
  der: Buffer;
}

/** A self-signed certificate for `host`, valid from a minute ago for 30 days. */
export async function selfSignedCertificate(host: string): Promise<OwnCertificate> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomBytes(8)
        .toString("hex")
        .replace(/^[89a-f]/, "1"),
      name: `CN=${host}, O=tunnelgw`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 30 * 86_400_000),
      keys,
      signingAlgorithm: alg,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(
          KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.keyCertSign,
          true,
        ),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth]),
        new SubjectAlternativeNameExtension([{ type: "dns", value: host }]),
      ],
    },
    webcrypto,
  );
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return {
    certPem: cert.toString("pem"),
    keyPem: PemConverter.encode(pkcs8, "PRIVATE KEY"),
    der: Buffer.from(cert.rawData),
  };
}
