/**
 * Writes the throwaway example key material in examples/keys/ (see its README.md): a CA, two TLS
 * certificates with their keys, SSH public keys and a SAML IdP metadata document. Run it by hand with
 * `npx tsx scripts/make-example-keys.ts`; tests never run it. File names are fixed; contents are new keys
 * on every run. Everything is checked with src/crypto before it is written.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseSshPublicKey, privateKeyMatchesCertificate } from "../src/crypto/index.js";
import { createSshKeyPair, createTestCa, createTestCertificate } from "../src/crypto/testing.js";
import { parseCertificateChain } from "../src/server/certificate-info.js";

const OUT = fileURLToPath(new URL("../examples/keys/", import.meta.url));
const NOT_BEFORE = new Date("2026-01-01T00:00:00Z");
const NOT_AFTER = new Date("2036-01-01T00:00:00Z");
const SUBJECT = {
  organization: "Example Inc",
  organizationalUnit: "Platform",
  locality: "San Francisco",
  province: "California",
  country: "US",
};

const written: string[] = [];
function write(name: string, text: string): void {
  writeFileSync(`${OUT}${name}`, text.endsWith("\n") ? text : `${text}\n`);
  written.push(name);
}

mkdirSync(OUT, { recursive: true });

const ca = await createTestCa({
  commonName: "Example Root CA",
  keyType: "ecdsa",
  notBefore: NOT_BEFORE,
  notAfter: NOT_AFTER,
});
write("ca.pem", ca.certificatePem);

const app = await createTestCertificate({
  issuer: ca,
  keyType: "rsa",
  commonName: "app.example.com",
  ...SUBJECT,
  dnsNames: ["app.example.com", "*.app.example.com"],
  ips: ["192.0.2.10"],
  notBefore: NOT_BEFORE,
  notAfter: NOT_AFTER,
  keyUsages: ["digital_signature", "key_encipherment"],
  extendedKeyUsages: ["server_auth"],
  serialNumber: "1001",
});
const api = await createTestCertificate({
  issuer: ca,
  keyType: "ecdsa",
  commonName: "api.example.com",
  ...SUBJECT,
  dnsNames: ["api.example.com"],
  notBefore: NOT_BEFORE,
  notAfter: NOT_AFTER,
  keyUsages: ["digital_signature"],
  extendedKeyUsages: ["server_auth", "client_auth"],
  serialNumber: "1002",
});
for (const [name, cert] of [
  ["app.example.com", app],
  ["api.example.com", api],
] as const) {
  parseCertificateChain(cert.certificatePem);
  if (!privateKeyMatchesCertificate(cert.privateKeyPem, cert.certificatePem)) {
    throw new Error(`${name}: the key does not match the certificate`);
  }
  write(`${name}.crt.pem`, cert.certificatePem);
  write(`${name}.key.pem`, cert.privateKeyPem);
}

for (const type of ["ed25519", "rsa", "ecdsa"] as const) {
  const { publicKey } = createSshKeyPair(type, { comment: `deploy-${type}@example.com` });
  parseSshPublicKey(publicKey);
  write(`deploy_${type}.pub`, publicKey);
}

// The IdP's signing certificate is self-signed, as IdP metadata certificates usually are.
const idp = await createTestCertificate({
  issuer: "self",
  keyType: "rsa",
  commonName: "idp.example.com",
  organization: "Example Inc",
  dnsNames: [],
  notBefore: NOT_BEFORE,
  notAfter: NOT_AFTER,
  keyUsages: ["digital_signature"],
  extendedKeyUsages: [],
  serialNumber: "2001",
});
const idpCertBase64 = idp.certificatePem.replace(/-----[A-Z ]+-----|\s/g, "");
write(
  "idp-metadata.xml",
  `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"
                     xmlns:ds="http://www.w3.org/2000/09/xmldsig#"
                     entityID="https://idp.example.com/saml/metadata">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false"
                       protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo>
        <ds:X509Data>
          <ds:X509Certificate>${idpCertBase64}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
                            Location="https://idp.example.com/saml/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
                            Location="https://idp.example.com/saml/sso"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
                            Location="https://idp.example.com/saml/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`,
);

console.log(`wrote ${written.length} files to ${OUT}:\n  ${written.join("\n  ")}`);
