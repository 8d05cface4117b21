/**
 * SIGKILL in the middle of an apply whose results live in the state journal (docs/state.md > The
 * journal): without ownership markers the state is the only record, so every change the apply reported
 * as done must be in the state after the kill (file and journal), with its id, and the next apply
 * creates only what was not recorded.
 */
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FileStateStore } from "../../src/state/index.js";
import { manyBackends, spawnTgw, tgw } from "../cli/tgw.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/**
 * Backends of the apply: enough that it is still running when 40 creates have been reported, though
 * progress reaches a pipe in batches (src/cli/output.ts LineOutput): with 120, the kill often landed
 * after the final compaction.
 */
const BACKENDS = 400;

/** An apply of BACKENDS backends without markers, SIGKILLed once it has reported 40 creates. */
async function killedApply(): Promise<{ dir: string; reported: Map<string, string> }> {
  const dir = await manyBackends(BACKENDS, "kill");
  dirs.push(dir);
  const config = join(dir, "tgw.yaml");
  await writeFile(config, `ownership: state-only\n${await readFile(config, "utf8")}`);
  const child = spawnTgw(["apply", "-f", ".", "--auto-approve", "--parallelism", "2"], {
    cwd: dir,
    server: { url: server.url, token: server.token },
  });
  const reported = new Map<string, string>();
  await new Promise<void>((resolve) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      for (const m of out.matchAll(/^(tunnel_group_backends\.\S+): created (\S+)/gm))
        reported.set(m[1] as string, m[2] as string);
      if (reported.size >= 40 && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
    child.on("close", () => resolve());
  });
  expect(child.signalCode).toBe("SIGKILL");
  return { dir, reported };
}

it("SIGKILL during an apply without markers: every change reported done is in the state; the next apply creates only the rest", async () => {
  const target = { url: server.url, token: server.token };
  // Killed between compactions: the journal holds writes the state file does not. A kill that lands
  // just after a compaction leaves no journal to replay, which is not what this test is about: try
  // again, at most three times (progress reaches a pipe in batches, so where the kill lands varies).
  let run = await killedApply();
  for (
    let tries = 1;
    tries < 3 && !(await readdir(join(run.dir, ".tgw"))).includes("state.json.journal");
    tries++
  )
    run = await killedApply();
  const { dir, reported } = run;
  const files = await readdir(join(dir, ".tgw"));
  expect(files).toContain("state.json.journal");
  const fileOnly = JSON.parse(await readFile(join(dir, ".tgw", "state.json"), "utf8"));
  const state = await new FileStateStore(join(dir, ".tgw", "state.json"), { stack: "kill" }).read();
  expect(state.serial).toBeGreaterThan(fileOnly.serial);
  for (const [address, id] of reported) expect(state.resources[address]?.id).toBe(id);

  server.resetRequests();
  const again = await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target });
  expect(again.code).toBe(0);
  const recorded = Object.keys(state.resources).length;
  expect(server.mutations().filter((r) => r.method === "POST")).toHaveLength(BACKENDS - recorded);
  const after = await new FileStateStore(join(dir, ".tgw", "state.json"), { stack: "kill" }).read();
  expect(Object.keys(after.resources)).toHaveLength(BACKENDS);
  for (const [address, id] of reported) expect(after.resources[address]?.id).toBe(id);
  // The run that ended normally folded the journal into the file.
  expect(await readdir(join(dir, ".tgw"))).not.toContain("state.json.journal");
}, 120_000);
