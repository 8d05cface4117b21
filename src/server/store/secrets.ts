/**
 * Encryption at rest of the secrets a `--data` file holds (docs/server.md > Storage): the SSH CA and
 * SAML signing private keys made by the server, OIDC client secrets and event destinations' cloud
 * secret keys and monitoring API keys. Each such string value in a stored body becomes
 * `tgwenc:v1:<iv>:<tag>:<ciphertext>` (AES-256-GCM, base64), with a key derived by scrypt from the
 * operator's data key and a random salt kept in the file. A check value in the file tells a wrong key
 * from a damaged file.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { TgwError } from "../../errors.js";
import { allKinds } from "../../model/index.js";

/** A missing or wrong data key: names the file and what to do. */
export class DataKeyError extends TgwError {
  constructor(message: string) {
    super("serve", message);
  }
}

const PREFIX = "tgwenc:v1:";
const CHECK_TEXT = "tgw data key check";

let names: Set<string> | undefined;

/** The body keys whose string values are secrets: the schemas' secret fields plus server-side keys. */
export function secretKeyNames(): ReadonlySet<string> {
  if (names === undefined) {
    names = new Set(["private_key", "signing_private_key"]);
    for (const kind of allKinds().values()) {
      for (const path of kind.secretPaths) names.add(path[path.length - 1] ?? "");
    }
    names.delete("token");
  }
  return names;
}

/** Encrypts and decrypts secret values with one key. */
export class SecretBox {
  readonly #key: Buffer;

  /** @param dataKey the operator's key (any text, at least 16 characters); `salt` from the file */
  constructor(dataKey: string, salt: Buffer) {
    this.#key = scryptSync(dataKey, salt, 32);
  }

  encrypt(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const data = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return `${PREFIX}${iv.toString("base64")}:${cipher.getAuthTag().toString("base64")}:${data.toString("base64")}`;
  }

  /** @throws Error when the value was not encrypted with this key */
  decrypt(value: string): string {
    const [iv = "", tag = "", data = ""] = value.slice(PREFIX.length).split(":");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64"));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8");
  }

  /** A value to keep in the file, to recognise this key later. */
  checkValue(): string {
    return this.encrypt(CHECK_TEXT);
  }

  /** Whether `value` (a checkValue of some key) was made with this key. */
  matches(value: string): boolean {
    try {
      return this.decrypt(value) === CHECK_TEXT;
    } catch {
      return false;
    }
  }

  /** A copy of a body with every secret string encrypted (already encrypted ones kept). */
  seal(body: unknown): unknown {
    return mapSecrets(body, (v) => (v.startsWith(PREFIX) ? v : this.encrypt(v)));
  }

  /** A copy of a stored body with every encrypted string decrypted. */
  open(body: unknown): unknown {
    return mapSecrets(body, (v) => (v.startsWith(PREFIX) ? this.decrypt(v) : v));
  }
}

function mapSecrets(node: unknown, f: (value: string) => string, secret = false): unknown {
  if (typeof node === "string") return secret ? f(node) : node;
  if (Array.isArray(node)) return node.map((item) => mapSecrets(item, f, secret));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = mapSecrets(v, f, secretKeyNames().has(k));
  return out;
}
