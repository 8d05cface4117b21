/**
 * The textual options of `tgw serve` / `startServer`: `--rate-limit N/WINDOW` and `--faults SPEC`.
 * Parse errors are `UsageError`s (the CLI shows them as usage mistakes).
 */
import { UsageError } from "../errors.js";

/**
 * Checks `--public-url`: an absolute http(s) URL without query or fragment.
 * @returns it without trailing slashes
 * @throws UsageError otherwise
 */
export function parsePublicUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== ""
  ) {
    throw new UsageError(
      `invalid public URL ${JSON.stringify(text)}: expected an http(s) URL such as https://api.example.com`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

/** At most `limit` requests per API key in any sliding window of `windowMs`. */
export interface RateLimitConfig {
  limit: number;
  windowMs: number;
  /** As given, e.g. `120/60s`, for messages. */
  text: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses `N/WINDOW`: N a positive integer, WINDOW a positive number with unit ms, s, m or h
 * (`120/60s`, `10/1s`, `1000/1h`). `120/60s` reproduces the production limit (docs/design.md section 5).
 * @throws UsageError on anything else
 */
export function parseRateLimit(text: string): RateLimitConfig {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(text);
  const limit = Number(m?.[1]);
  const windowMs = Number(m?.[2]) * (UNITS[m?.[3] ?? ""] ?? Number.NaN);
  if (!m || !(limit >= 1) || !(windowMs > 0)) {
    throw new UsageError(
      `invalid rate limit ${JSON.stringify(text)}: expected N/WINDOW such as 120/60s (units ms, s, m, h)`,
    );
  }
  return { limit, windowMs, text: text.trim() };
}

/**
 * What an injected fault does: answer a status, drop the connection without answer (nothing
 * processed), or `lost`: process the request, then close the connection instead of answering.
 */
export type FaultOutcome = 500 | 503 | 429 | "drop" | "lost";

/** Fault injection settings. */
export interface FaultConfig {
  /** Each outcome with its probability (sum at most 1). */
  rules: { outcome: FaultOutcome; probability: number }[];
  /** Seed of the pseudo-random draw, for reproducible runs; undefined: seeded from the clock. */
  seed?: number;
  /** `Retry-After` of an injected 429, in seconds (default 1). */
  retryAfterSeconds: number;
}

/**
 * Parses `500=0.1,503=0.05,429=0.05,drop=0.02,lost=0.02[,seed=42][,retry_after=1]`: outcomes 500,
 * 503, 429, drop and lost with probabilities in 0..1 whose sum is at most 1.
 * @throws UsageError naming the bad entry
 */
export function parseFaults(text: string): FaultConfig {
  const config: FaultConfig = { rules: [], retryAfterSeconds: 1 };
  const fail = (why: string) =>
    new UsageError(
      `invalid faults ${JSON.stringify(text)}: ${why}; expected e.g. 500=0.1,503=0.05,429=0.05,drop=0.02,seed=42`,
    );
  for (const entry of text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "")) {
    const [key = "", value = ""] = entry.split("=").map((s) => s.trim());
    const n = Number(value);
    if (value === "" || !Number.isFinite(n)) throw fail(`${JSON.stringify(entry)} has no number`);
    if (key === "seed") {
      if (!Number.isInteger(n)) throw fail("seed must be an integer");
      config.seed = n;
    } else if (key === "retry_after") {
      if (!Number.isInteger(n) || n < 0) throw fail("retry_after must be a whole number of seconds");
      config.retryAfterSeconds = n;
    } else if (key === "500" || key === "503" || key === "429" || key === "drop" || key === "lost") {
      if (n < 0 || n > 1) throw fail(`probability of ${key} must be in 0..1`);
      config.rules.push({
        outcome: key === "drop" || key === "lost" ? key : (Number(key) as 500 | 503 | 429),
        probability: n,
      });
    } else {
      throw fail(
        `unknown fault ${JSON.stringify(key)} (known: 500, 503, 429, drop, lost, seed, retry_after)`,
      );
    }
  }
  const total = config.rules.reduce((s, r) => s + r.probability, 0);
  if (total > 1 + 1e-9) throw fail(`probabilities add up to ${total}, more than 1`);
  return config;
}
