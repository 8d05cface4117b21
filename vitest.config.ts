import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each test file starts its own reference server on an ephemeral port.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
