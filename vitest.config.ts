import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // examples/cdktf imports the package's CDKTF constructs by name, as a user's app does.
  resolve: { alias: { "tunnelgw/cdktf": fileURLToPath(new URL("./src/cdktf/index.ts", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts"],
    // Each test file starts its own reference server on an ephemeral port.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
