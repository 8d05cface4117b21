/**
 * A token file and its sidecar on disk (docs/plan.md > Token files): the token and a newline in
 * `<file>` (mode 0600), and beside it `<file>.json`, whose token the file holds (key id, the token's
 * digest, the API, never the token). Reading them is a local read; ./token-writer.ts writes them (the
 * sidecar first), ./tokens.ts decides whose token goes where.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { StateApi } from "../state/store.js";

/** SHA-256 (hex) of a token, as sidecars and the state record it. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A token file's sidecar (`<token file>.json`, mode 0600): whose token the file holds, never the token. */
export interface TokenSidecar {
  key_id: string;
  /** SHA-256 (hex) of the token: the sidecar describes the file only while the file holds that token. */
  digest: string;
  /** The API the key lives in (the state's `api`); absent when the run had none (engine tests). */
  api?: StateApi;
  /** The key's address when its token was written. */
  address: string;
}

/** The sidecar of token file `tokenFile`. */
export const sidecarPath = (tokenFile: string) => `${tokenFile}.json`;

/** The sidecar text of the token `token` of key `id` at `address`. */
export function sidecarText(id: string, token: string, address: string, api: StateApi | undefined): string {
  const sidecar: TokenSidecar = { key_id: id, digest: tokenDigest(token), ...(api ? { api } : {}), address };
  return `${JSON.stringify(sidecar)}\n`;
}

/**
 * A file's text, "" when it cannot be read. Read synchronously: a plan reads one per key, and an await
 * per tiny file costs far more than its read (bench/README.md, 2026-11-27).
 */
function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** The token `file` holds whole (the token, then the newline written after it), if any. */
export function wholeToken(file: string): string | undefined {
  const text = readText(file);
  return /^\S+\n$/.test(text) ? text.slice(0, -1) : undefined;
}

/** The sidecar of `file` as written, whatever the file holds; undefined when missing or unreadable. */
export function sidecarOf(file: string): TokenSidecar | undefined {
  try {
    const s = JSON.parse(readText(sidecarPath(file))) as TokenSidecar;
    return typeof s?.key_id === "string" && typeof s.digest === "string" ? s : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whose token `file` holds, a local read: `owner` is its sidecar when the file holds the token of the
 * sidecar's digest; `token` undefined: no whole token; `owner` undefined: a token no sidecar describes
 * (written by hand, or by a tgw before sidecars).
 */
export function tokenOwner(file: string, sidecar = sidecarOf(file)) {
  const token = wholeToken(file);
  const owner = token !== undefined && sidecar?.digest === tokenDigest(token) ? sidecar : undefined;
  return { token, owner, sidecar };
}

/** True when `s` names key `id` of the API at `api`'s URL (either unknown: the id alone). */
export function namesKey(s: TokenSidecar | undefined, id: string, api: StateApi | undefined): boolean {
  return s?.key_id === id && (s.api === undefined || api === undefined || s.api.url === api.url);
}

/**
 * Moves a token file and its sidecar from `from` to `to`, the sidecar first: whatever a crash leaves,
 * a token file is never beside a sidecar of another token (a sidecar left alone describes no file,
 * and a token left without its sidecar is one tgw cannot name, which is never taken for a key's).
 */
export async function moveTokenFile(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  await rename(sidecarPath(from), sidecarPath(to)).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
    // Kept when it describes this very token: a move cut off between its two renames, resumed.
    const token = wholeToken(from);
    if (token === undefined || sidecarOf(to)?.digest !== tokenDigest(token))
      await rm(sidecarPath(to), { force: true });
  });
  await rename(from, to);
}
