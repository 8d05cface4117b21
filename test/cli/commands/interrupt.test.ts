/**
 * Ctrl-C in the middle of `tgw apply`: the calls in flight finish, nothing new starts, the process
 * exits 130 (README's exit codes), the error names at most ten addresses of each list and counts the
 * rest, and the next apply converges with an empty plan after it.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, spawnTgw, tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await manyBackends(60, "interrupted");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

// A slow client (5 calls a second) so that the signal surely comes mid-apply.
const opts = () => ({
  cwd: dir,
  server: { url: server.url, token: server.token },
  env: { CI: "true", TGW_RATE_LIMIT: "5/1s" },
});

it("exits 130 mid-apply with short lists, and the next apply converges", async () => {
  const child = spawnTgw(["apply", "-f", ".", "--auto-approve", "--parallelism", "1"], opts());
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (/: created bkdtg_/.test(stdout) && !child.killed) child.kill("SIGINT");
    });
    child.on("close", (c) => resolve(c));
  });
  expect(stderr).toContain("apply interrupted");
  expect(code).toBe(130);
  const notStarted = /(\d+) not started \(([^)]*)\)/.exec(stderr);
  expect(notStarted).not.toBeNull();
  const [, count, list] = notStarted as RegExpExecArray;
  expect(Number(count)).toBeGreaterThan(10);
  expect(list?.split(", ")).toHaveLength(10);
  expect(list).toMatch(new RegExp(`and ${Number(count) - 10} more$`));

  const again = await tgw(["apply", "-f", ".", "--auto-approve"], { ...opts(), env: { CI: "true" } });
  expect(again.code).toBe(0);
  const plan = await tgw(["plan", "-f", ".", "--detailed-exitcode"], { ...opts(), env: { CI: "true" } });
  expect(plan.stdout).toContain("No changes.");
  expect(plan.code).toBe(0);
});
