import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { JsonReportWithFileCosts } from "./test/json-report.js";

export default defineConfig({
  // examples/cdktf imports the CDKTF constructs by their package's name, as a user's app does: the
  // sources here, packages/cdktf's build in an app.
  resolve: {
    alias: { "@tunnelgw/cdktf": fileURLToPath(new URL("./src/cdktf/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // The console report, and Vitest's JSON one with what each test file cost (test/json-report.ts),
    // kept as an artifact of a CI run: `.ci/run` ends with the ten slowest files (scripts/slowest-tests.mjs).
    reporters: ["default", new JsonReportWithFileCosts({ outputFile: "test-artifacts/vitest.json" })],
    // Bundles the CLI the tests start (test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    // Each test file starts its own reference server on an ephemeral port.
    pool: "forks",
    // Two files at once even on two cores (Vitest's default is cores - 1): most of a file's time is
    // spent waiting for the processes it starts (tgw, terraform, PostgreSQL), not computing.
    maxWorkers: 2,
    // Generous: CLI tests start `tgw` several times each, and on a machine with two
    // CPU-bound processes beside the suite one start took over 10 s (issue 12, item 13). Tests never
    // assert durations; a timeout only bounds a test that hangs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
