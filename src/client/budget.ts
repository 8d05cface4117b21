/**
 * The rate-limit budget of one API key, kept between processes on one machine: the client-side
 * limiter (./rate-limit.ts) counts only its own process's requests, so without this the eighth
 * `tgw plan` in a minute starts with a full budget and meets the API's 429s. A client saves the end
 * times of its recent requests when it closes; the next client of the same API and key starts with
 * them counted.
 *
 * One file per API URL and key, named by a SHA-256 digest of both (never the key), mode 0600, under
 * `$TGW_CACHE_DIR`, else `$XDG_CACHE_HOME/tgw`, else `~/.cache/tgw`, in `rate-limit/`. Best effort:
 * a missing, unreadable or malformed file counts as an empty budget, and a failed save is ignored.
 * Consecutive runs share the budget; runs at the same time each count their own requests.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { userCacheDir } from "../cache-dir.js";

/** The directory of budget files for this user (see the module doc). */
export function defaultBudgetDir(env: Record<string, string | undefined> = process.env): string {
  return join(userCacheDir(env), "rate-limit");
}

/** The budget file of `baseUrl` and `apiKey` in `dir`. */
export function budgetFile(dir: string, baseUrl: string, apiKey: string): string {
  const digest = createHash("sha256").update(`tgw-rate-limit\n${baseUrl}\n${apiKey}`).digest("hex");
  return join(dir, `${digest.slice(0, 32)}.json`);
}

/**
 * The end times (ms since the epoch) of requests saved in `file` that ended less than `windowMs` ago.
 * @returns [] when there is no usable file.
 */
export function loadBudget(file: string, windowMs: number, nowMs = Date.now()): number[] {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as { ends?: unknown };
    if (!Array.isArray(data.ends)) return [];
    return data.ends.filter((t): t is number => typeof t === "number" && t > nowMs - windowMs && t <= nowMs);
  } catch {
    return [];
  }
}

/** Saves the end times (ms since the epoch) of recent requests to `file` (0600; errors ignored). */
export function saveBudget(file: string, ends: readonly number[]): void {
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    // Not atomic on purpose: a torn file reads as an empty budget, which is what a lost one costs.
    writeFileSync(file, JSON.stringify({ ends }), { mode: 0o600 });
  } catch {
    // A budget that cannot be saved only costs the next run its head start.
  }
}
