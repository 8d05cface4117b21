/**
 * SAML module (docs/api.md > Traffic modules > SAML). The read-only fields: `entity_id` equals
 * `metadata_url`; the metadata, assertion consumer service and single logout URLs are under this
 * server's `/saml/<route id>/`; `idp_metadata_url` is "" (the IdP metadata is given inline);
 * `request_signing_certificate_pem` is a real self-signed certificate (RSA 2048, SHA-256) made when
 * the module is first set and kept across PUTs; its private key stays server-side. The schema
 * checks `nameid_format` (docs/design.md section 5).
 */
import { webcrypto } from "node:crypto";
import { KeyUsageFlags, KeyUsagesExtension, X509CertificateGenerator } from "@peculiar/x509";
import type { KindHooks } from "../hooks.js";

const ALGORITHM = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
};
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

/** A self-signed signing certificate and its private key (PKCS#8), both PEM. */
async function signingCertificate(routeId: string): Promise<{ certificate: string; privateKey: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date();
  const cert = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
        .toString("hex")
        .replace(/^[89a-f]/, "1"),
      name: `CN=tgw SAML SP ${routeId}`,
      notBefore,
      notAfter: new Date(notBefore.getTime() + TEN_YEARS_MS),
      keys,
      signingAlgorithm: ALGORITHM,
      extensions: [new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true)],
    },
    webcrypto,
  );
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const privateKey = `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END PRIVATE KEY-----\n`;
  return { certificate: `${cert.toString("pem")}\n`, privateKey };
}

/** The rules of this file, as hooks of the generic builders. */
export const samlHooks: KindHooks = {
  async create(input, _ctx, routeId, current) {
    const kept = current?.body;
    const signing =
      typeof kept?.request_signing_certificate_pem === "string" &&
      typeof kept.signing_private_key === "string"
        ? { certificate: kept.request_signing_certificate_pem, privateKey: kept.signing_private_key }
        : await signingCertificate(routeId);
    return {
      body: {
        ...input,
        request_signing_certificate_pem: signing.certificate,
        signing_private_key: signing.privateKey,
      },
    };
  },
  present(obj, ctx) {
    const base = `${ctx.baseUrl}/saml/${obj.parentId}`;
    return {
      idp_metadata_url: "",
      entity_id: `${base}/metadata`,
      metadata_url: `${base}/metadata`,
      assertion_consumer_service_url: `${base}/acs`,
      single_logout_url: `${base}/slo`,
    };
  },
  presentOfObjectAlone: true,
};
