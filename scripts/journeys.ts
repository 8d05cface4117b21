/**
 * `npm run test:journeys -- --runs N [--seed S --path P --replay R] [--trace]`: only the journey tests
 * (test/journeys/journeys.test.ts) with N random runs; seed, path and replay path replay a failure
 * as fast-check printed it; `--trace` prints the live objects and the state after every command.
 * Passed to the test file as JOURNEY_RUNS, JOURNEY_SEED, JOURNEY_PATH, JOURNEY_REPLAY, JOURNEY_TRACE.
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    replay: { type: "string" },
    trace: { type: "boolean" },
  },
});
const env: Record<string, string | undefined> = { ...process.env };
if (values.runs !== undefined) env.JOURNEY_RUNS = values.runs;
if (values.seed !== undefined) env.JOURNEY_SEED = values.seed;
if (values.path !== undefined) env.JOURNEY_PATH = values.path;
if (values.replay !== undefined) env.JOURNEY_REPLAY = values.replay;
if (values.trace) env.JOURNEY_TRACE = "1";
const result = spawnSync("npx", ["vitest", "run", "test/journeys/journeys.test.ts"], {
  stdio: "inherit",
  env,
});
process.exit(result.status ?? 1);
