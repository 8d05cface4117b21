/**
 * Identifiers and secrets the server makes: resource ids (`<prefix><27 alphanumerics>`, docs/api.md >
 * Identifier prefixes), operation ids (`op_...`, docs/design.md section 5 > Errors), API key tokens and
 * their SHA-256 hashes (tokens are never stored in clear).
 */
import { hash, randomBytes, randomFillSync, timingSafeEqual } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes are drawn from the CSPRNG 4 KiB at a time: a `randomInt` per character cost a call
// into the CSPRNG each (47 per create: an operation id and a resource id).
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** One random byte from the pool, refilled when used up. */
function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

// The largest multiple of 62 that fits in a byte: bytes at or above it are drawn again, so that
// every character stays equally likely (rejection sampling, as randomInt does).
const UNBIASED = 256 - (256 % ALPHABET.length);

/** `length` random characters of [0-9A-Za-z], uniformly drawn. */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    const b = randomByte();
    if (b < UNBIASED) out += ALPHABET[b % ALPHABET.length];
  }
  return out;
}

/** A new resource id, e.g. `newId("ak_")` -> `ak_2x9...` (prefix + 27 alphanumerics). */
export function newId(prefix: string): string {
  return `${prefix}${randomAlphanumeric(27)}`;
}

/** Whether `id` is well formed for `prefix`: the prefix then one or more ASCII letters or digits. */
export function isWellFormedId(id: string, prefix: string): boolean {
  return id.startsWith(prefix) && /^[A-Za-z0-9]+$/.test(id.slice(prefix.length));
}

/** A new operation id (`op_` + 20 alphanumerics), one per request; also Fastify's request id. */
export function newOperationId(): string {
  return `op_${randomAlphanumeric(20)}`;
}

/** A new API key token: `tgw_` + 43 base64url characters (256 random bits). */
export function newToken(): string {
  return `tgw_${randomBytes(32).toString("base64url")}`;
}

/** SHA-256 of a token (UTF-8), as 32 bytes: the only form in which tokens are stored. */
export function tokenHash(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

/** Constant-time equality of two hashes (false when their lengths differ). */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Now, RFC 3339 UTC with second precision (`2025-01-31T12:00:00Z`), as the API writes timestamps. */
export function nowTimestamp(): string {
  return toTimestamp(new Date());
}

/** A date as RFC 3339 UTC with second precision (milliseconds dropped). */
export function toTimestamp(date: Date): string {
  const iso = date.toISOString();
  // `YYYY-MM-DDTHH:MM:SS.mmmZ`: 24 characters for years 0000-9999 (the regular expression this
  // replaces cost a match per write); other years keep their form less the milliseconds.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, "Z");
}
