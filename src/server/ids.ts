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

const CODES = Buffer.from(ALPHABET, "latin1");
// The characters of one call, written as bytes: adding them to a string one by one cost twice as much.
let chars = Buffer.alloc(64);

/** `length` random characters of [0-9A-Za-z], uniformly drawn. */
export function randomAlphanumeric(length: number): string {
  if (length > chars.length) chars = Buffer.alloc(length);
  let n = 0;
  while (n < length) {
    const b = randomByte();
    if (b < UNBIASED) chars[n++] = CODES[b % ALPHABET.length] as number;
  }
  return chars.toString("latin1", 0, length);
}

/** Characters of an id that tell its second (62^6 seconds: until the year 3770). */
const TIME_CHARS = 6;

// The second of the last id made and its characters.
let idSecond = Number.NaN;
let idTime = "";

/** `second` in base 62, TIME_CHARS characters: in the ASCII order of ALPHABET, text order is time order. */
function base62Second(second: number): string {
  let out = "";
  let n = second;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = (ALPHABET[n % ALPHABET.length] as string) + out;
    n = Math.floor(n / ALPHABET.length);
  }
  return out;
}

/**
 * A new resource id, e.g. `newId("ak_")` -> `ak_1GpQ2x9...`: the prefix, then 27 alphanumerics, of
 * which the first 6 are the second it was made in (base 62) and 21 are random (125 bits), like a
 * KSUID. Ids of one kind thus grow with time, so the store's index of ids takes each new one next to
 * the last instead of at a random place, and an insert costs the same however large the table is
 * (random ids made it dearer as the table grew: bench/README.md).
 */
export function newId(prefix: string): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== idSecond) {
    idTime = base62Second(second);
    idSecond = second;
  }
  return `${prefix}${idTime}${randomAlphanumeric(27 - TIME_CHARS)}`;
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

/**
 * SHA-256 of a token (UTF-8) in base64 (44 characters): what authentication computes on every
 * request. A string, not a Buffer: a Buffer per request cost twice the hash itself.
 */
export function tokenDigest(token: string): string {
  return hash("sha256", token, "base64");
}

/**
 * Constant-time equality of two digests of tokenDigest (false when their lengths differ): every
 * character is compared, whatever differs first.
 */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// The last second formatted by nowTimestamp and its text: every write of a second reuses it
// (formatting a Date was a few microseconds of each create).
let lastSecond = Number.NaN;
let lastText = "";

/** Now, RFC 3339 UTC with second precision (`2025-01-31T12:00:00Z`), as the API writes timestamps. */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastText = toTimestamp(new Date(second * 1000));
    lastSecond = second;
  }
  return lastText;
}

/** A date as RFC 3339 UTC with second precision (milliseconds dropped). */
export function toTimestamp(date: Date): string {
  const iso = date.toISOString();
  // `YYYY-MM-DDTHH:MM:SS.mmmZ`: 24 characters for years 0000-9999 (the regular expression this
  // replaces cost a match per write); other years keep their form less the milliseconds.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, "Z");
}
