/**
 * Before the suite: bundles the CLI from the sources into `.test-build/` (scripts/bundle.ts, about 3 s),
 * so that the tests start `tgw` as users run it (one bundled script through its launcher), from the
 * sources of this very run, without `tsx` compiling them again in every process (0.4 to 0.9 s a start
 * against 0.1 to 0.3 s). test/cli/tgw.ts and test/watch/child.ts run `TEST_TGW`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export default function setup(): () => void {
  // tgw's cache (page cursors, reads, rate-limit budgets, code caches) in a directory of this run, not
  // the user's ~/.cache/tgw: no run sees another's hints. Test files start after this, with it set.
  const cache = mkdtempSync(join(tmpdir(), "tgw-test-cache-"));
  process.env.TGW_CACHE_DIR ??= cache;
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  const built = spawnSync(process.execPath, [tsx, "scripts/bundle.ts", ".test-build/tgw"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`bundling the CLI for the tests failed:\n${built.stderr}`);
  mkdirSync(`${ROOT}.test-build`, { recursive: true });
  writeFileSync(
    `${ROOT}.test-build/tgw.cjs`,
    [
      '"use strict";',
      "// The test suite's tgw: bin/tgw.js for the bundle of test/global-setup.ts.",
      'const { join } = require("node:path");',
      'require("./tgw/launch.cjs").launch(join(__dirname, "tgw", "tgw.cjs"), process.argv.slice(2));',
      "",
    ].join("\n"),
  );
  return () => rmSync(cache, { recursive: true, force: true });
}
