/**
 * SSH certificate authorities (referenced-only, docs/design.md section 5): each holds a real ed25519
 * key pair generated here. The private key is stored server-side to sign host certificates and never
 * returned; responses show the public key (authorized_keys line) and its type.
 */
import { generateSshCaKeyPair } from "../../../crypto/ssh-certificate.js";
import type { KindHooks } from "../hooks.js";

/** The rules of this file, as hooks of the generic builders. */
export const sshCertificateAuthorityHooks: KindHooks = {
  create(input, _ctx, id) {
    const pair = generateSshCaKeyPair(`tgw-ssh-ca ${id}`);
    return {
      body: { ...input, public_key: pair.publicKey, key_type: "ed25519", private_key: pair.privateKey },
    };
  },
};
