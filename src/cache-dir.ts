/**
 * The user's cache directory of tgw: `$TGW_CACHE_DIR`, else `$XDG_CACHE_HOME/tgw`, else `~/.cache/tgw`.
 * What lives there can be deleted at any time: rate-limit budgets (src/client/budget.ts), the page
 * cursors of lists (src/engine/pages.ts), the reads of a workspace's last plan (src/client/prefetch.ts)
 * and V8 code caches of the CLI bundle (src/launch/launch.ts).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The cache directory for `env` (see above); not created here. */
export function userCacheDir(env: Record<string, string | undefined> = process.env): string {
  const cache = env.TGW_CACHE_DIR || (env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, "tgw") : undefined);
  return cache ?? join(homedir(), ".cache", "tgw");
}

/**
 * The JSON file in `dir` named by the SHA-256 of `parts` (joined by newlines): a cache file per API,
 * key or workspace whose name never shows the key or the paths it is for.
 */
export function hashedJsonFile(dir: string, parts: readonly string[]): string {
  const digest = createHash("sha256").update(parts.join("\n")).digest("hex");
  return join(dir, `${digest.slice(0, 32)}.json`);
}

/** The JSON value in `file`; undefined when it is missing or unreadable (a cache holds nothing then). */
export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Writes `value` as JSON to `file` (mode 0600, its directories 0700). Best effort and not atomic: a
 * cache file that cannot be written, or is torn, costs the next run its hint, nothing else.
 */
export function writeJsonFile(file: string, value: unknown): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(value), { mode: 0o600 });
  } catch {
    // best effort (see the docstring)
  }
}
