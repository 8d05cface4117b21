/**
 * Real crypto shared by the reference server and the config validator (docs/design.md section 5; issues 3
 * and 4): TLS certificate chains and private keys, SSH public keys, and an SSH certificate authority that
 * signs OpenSSH host certificates. Every deliberate refusal is a CryptoInputError whose message says what
 * is wrong with the input. Test helpers live in ./testing.js and are not re-exported here.
 */
export { CryptoInputError } from "./errors.js";
export { KEY_TYPES, type KeyType } from "./key-type.js";
export { type ParsedPrivateKey, parsePrivateKey, privateKeyMatchesCertificate } from "./private-key.js";
export { parseSshPublicKey, type SshPublicKey } from "./ssh.js";
export {
  generateSshCaKeyPair,
  type SshCaKeyPair,
  type SshHostCertificateRequest,
  signSshHostCertificate,
} from "./ssh-certificate.js";
export { checkCertificateChain, leafPublicKey } from "./x509.js";
export {
  EXTENDED_KEY_USAGE_OIDS,
  type ExtendedKeyUsageName,
  type KeyUsageName,
} from "./x509-usages.js";
