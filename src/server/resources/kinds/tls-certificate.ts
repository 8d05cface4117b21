/**
 * TLS certificates (docs/api.md > TLS certificate; docs/design.md section 5): every response field is
 * parsed from the PEM chain's leaf (src/crypto); the private key must parse and match the leaf's
 * public key, else 400. The private key is checked and dropped: it is never stored nor returned.
 * `issued_at` is null (uploaded, not issued automatically).
 */
import { privateKeyMatchesCertificate } from "../../../crypto/private-key.js";
import { parseCertificateChain } from "../../certificate-info.js";
import { problems } from "../../errors.js";
import type { KindHooks } from "../hooks.js";

/** The rules of this file, as hooks of the generic builders. */
export const tlsCertificateHooks: KindHooks = {
  create(input) {
    const { private_key_pem: privateKey, ...rest } = input;
    const pem = String(input.certificate_pem);
    const info = parseCertificateChain(pem);
    if (!privateKeyMatchesCertificate(String(privateKey), pem)) {
      throw problems.invalidValue(
        "private_key_pem does not match certificate_pem: it is not the private key of the leaf (first) certificate",
      );
    }
    return { body: { ...rest, ...info, issued_at: null } };
  },
};
