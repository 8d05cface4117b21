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
import { join } from "node:path";
import { hashedJsonFile, readJsonFile, userCacheDir, writeJsonFile } from "../cache-dir.js";

/** The directory of budget files for this user (see the module doc). */
export function defaultBudgetDir(env: Record<string, string | undefined> = process.env): string {
  return join(userCacheDir(env), "rate-limit");
}

/** The budget file of `baseUrl` and `apiKey` in `dir`. */
export function budgetFile(dir: string, baseUrl: string, apiKey: string): string {
  return hashedJsonFile(dir, ["tgw-rate-limit", baseUrl, apiKey]);
}

/**
 * The end times (ms since the epoch) of requests saved in `file` that ended less than `windowMs` ago.
 * @returns [] when there is no usable file.
 */
export function loadBudget(file: string, windowMs: number, nowMs = Date.now()): number[] {
  const ends = (readJsonFile(file) as { ends?: unknown } | undefined)?.ends;
  if (!Array.isArray(ends)) return [];
  return ends.filter((t): t is number => typeof t === "number" && t > nowMs - windowMs && t <= nowMs);
}

/** Saves the end times (ms since the epoch) of recent requests to `file` (0600; errors ignored). */
export function saveBudget(file: string, ends: readonly number[]): void {
  // Not atomic on purpose: a torn file reads as an empty budget, which is what a lost one costs.
  writeJsonFile(file, { ends });
}
