/**
 * The three key types the API knows (docs/api.md "TLS certificate" `private_key_type`, "SSH host
 * certificate" `key_type`), derived from a node:crypto KeyObject.
 */
import type { KeyObject } from "node:crypto";
import { CryptoInputError } from "./errors.js";

/** Key type as the API names it. ECDSA covers the NIST curves P-256, P-384 and P-521. */
export type KeyType = "rsa" | "ecdsa" | "ed25519";

/** Every KeyType, in the order used in messages. */
export const KEY_TYPES: readonly KeyType[] = ["rsa", "ecdsa", "ed25519"];

// node:crypto curve names accepted for ecdsa: the ones TLS and OpenSSH both use.
const EC_CURVES = new Set(["prime256v1", "secp384r1", "secp521r1"]);

/**
 * The API key type of a public or private KeyObject.
 *
 * @param key any node:crypto asymmetric key
 * @param what how to name the key in the error message, e.g. "the leaf certificate's public key"
 * @returns `rsa` (PKCS#1 v1.5 rsaEncryption keys; RSA-PSS-only keys are refused), `ecdsa` (P-256, P-384,
 *   P-521) or `ed25519`
 * @throws CryptoInputError naming the unsupported type (dsa, ed448, rsa-pss, x25519, other curves...)
 */
export function keyTypeOf(key: KeyObject, what: string): KeyType {
  const type = key.asymmetricKeyType;
  if (type === "rsa") return "rsa";
  if (type === "ed25519") return "ed25519";
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? "unknown";
    if (EC_CURVES.has(curve)) return "ecdsa";
    throw new CryptoInputError(
      `${what} uses the elliptic curve ${curve}, which is not supported: use P-256, P-384 or P-521`,
    );
  }
  throw new CryptoInputError(
    `${what} is of type ${type ?? "unknown"}, which is not supported: use ${KEY_TYPES.join(", ")}`,
  );
}
