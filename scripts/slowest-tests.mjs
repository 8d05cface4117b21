/**
 * Prints the ten slowest test files of a run, slowest first, from the JSON report `npm test` writes
 * (test-artifacts/vitest.json: Vitest's JSON report with each file's costs, test/json-report.ts). A
 * file's time is what it cost its worker: prepared, loaded (imports and top-level awaits), set up, and
 * run (hooks and tests); a report without those figures gives the span of its tests instead.
 * `.ci/run` ends with it.
 *
 * Never fails: a missing or unreadable report (the tests did not run, or stopped before writing it)
 * is said, and the exit code is 0.
 *
 * Usage: node scripts/slowest-tests.mjs [report.json] [count]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const file = process.argv[2] ?? "test-artifacts/vitest.json";
const count = Number(process.argv[3] ?? 10);

let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  const why = err.code === "ENOENT" ? "there is none" : `it cannot be read (${err.message})`;
  console.log(`Slowest test files: no test report at ${file}: ${why}, so no durations to show.`);
  process.exit(0);
}

/** Milliseconds a file cost, from one entry of the report's `testResults`. */
function cost(r) {
  const parts = [r.prepareDuration, r.collectDuration, r.setupDuration, r.duration];
  if (parts.some((p) => typeof p === "number")) return parts.reduce((sum, p) => sum + (Number(p) || 0), 0);
  return Number(r.endTime) - Number(r.startTime) || 0;
}

const files = (Array.isArray(report.testResults) ? report.testResults : []).map((r) => ({
  name: relative(process.cwd(), String(r.name)),
  seconds: cost(r) / 1000,
  failed: r.status === "failed",
}));
files.sort((a, b) => b.seconds - a.seconds);
const shown = files.slice(0, count);
console.log(`The ${shown.length} slowest of ${files.length} test files (${file}):`);
const width = Math.max(0, ...shown.map((f) => f.seconds.toFixed(1).length));
for (const f of shown)
  console.log(`  ${f.seconds.toFixed(1).padStart(width)} s  ${f.name}${f.failed ? "  (failed)" : ""}`);
