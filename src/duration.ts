/**
 * Durations on the command line (`--lock-timeout 30s`): one parser and one printer for every command.
 *
 * Accepted: a sequence of `<number><unit>` with units `ms`, `s`, `m`, `h` (`500ms`, `30s`, `1.5m`,
 * `1m30s`), or a bare number of seconds (`0`, `30`). Not negative.
 *
 * Kept instead of the `ms` package, which cannot express three of these rules: compound durations
 * (`1m30s`, also what `formatDuration` prints), a bare number meaning seconds (`ms` reads milliseconds),
 * and refusing negative values.
 */
import { UsageError } from "./errors.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;

/**
 * Parses a duration into milliseconds (rounded to a whole number).
 * @param text e.g. `30s`, `0`, `1m30s`, `250ms`, `2` (seconds).
 * @param what the option or setting it came from, named in the error (`--lock-timeout`).
 * @throws UsageError `invalid duration "abc" for --lock-timeout: use a number with a unit, e.g. 0, 500ms, 30s, 5m, 1h`.
 */
export function parseDuration(text: string, what = "duration"): number {
  const s = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return Math.round(Number(s) * 1_000);
  let total = 0;
  PART.lastIndex = 0;
  let pos = 0;
  while (pos < s.length) {
    const m = PART.exec(s);
    if (m === null) break;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    pos = PART.lastIndex;
  }
  if (s === "" || pos !== s.length) {
    throw new UsageError(
      `invalid duration "${text}" for ${what}: use a number with a unit, e.g. 0, 500ms, 30s, 5m, 1h`,
    );
  }
  return Math.round(total);
}

/** Prints milliseconds as the shortest exact-enough duration: `0s`, `250ms`, `30s`, `1.5s`, `2m`, `1m30s`, `1h5m`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return ms === 0 ? "0s" : `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const totalS = Math.round(ms / 1_000);
  const h = Math.floor(totalS / 3_600);
  const m = Math.floor((totalS % 3_600) / 60);
  const sec = totalS % 60;
  return `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${sec > 0 ? `${sec}s` : ""}`;
}
