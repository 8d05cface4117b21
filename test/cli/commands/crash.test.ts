/**
 * Crash safety and concurrency, with the real CLI in its own process:
 * - `tgw apply` killed with SIGKILL while creating 300 resources, then applied again: exactly 300 live
 *   resources, none duplicated, none orphaned (the marker sent in each create call is what lets the
 *   second run adopt what the first created but did not record).
 * - Two applies started at once: one fails naming the lock holder (or waits with --lock-timeout);
 *   nothing is created twice.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../../src/client/index.js";
import { FileStateStore } from "../../../src/state/index.js";
import { liveAddresses } from "../../helpers/live.js";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, spawnTgw, tgw } from "../tgw.js";

let server: TestServer;
let api: ApiClient;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
});
afterAll(async () => {
  await api.close();
  await server.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const target = () => ({ url: server.url, token: server.token });
const N = 300;

it("SIGKILL during an apply of 300 creates, then apply again: 300 live, none duplicated, none orphaned", async () => {
  // 300: progress reaches a pipe in batches (every 0.1 s), and the kill must come before the end.
  const dir = await manyBackends(N, "crash");
  dirs.push(dir);
  const child = spawnTgw(["apply", "-f", ".", "--auto-approve", "--parallelism", "2"], {
    cwd: dir,
    server: target(),
  });
  let created = 0;
  const killed = new Promise<void>((resolve) => {
    child.stdout?.on("data", (d: Buffer) => {
      created += (d.toString().match(/: created /g) ?? []).length;
      if (created >= 20 && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
    child.on("close", () => resolve());
  });
  await killed;
  expect(child.signalCode).toBe("SIGKILL");
  const before = await liveAddresses(api, "crash");
  expect(before.size).toBeGreaterThanOrEqual(20);
  expect(before.size).toBeLessThan(N);
  // The state (written before the first create) is readable, records no more than exists, and
  // names every create that may have happened: a pending record for each object it does not record
  // (docs/state.md > Pending creates).
  const recorded = await new FileStateStore(join(dir, ".tgw", "state.json"), { stack: "crash" }).read();
  expect(recorded.serial).toBeGreaterThan(0);
  const addresses = Object.keys(recorded.resources);
  const done = addresses.filter((a) => !a.endsWith("#pending"));
  expect(done.length).toBeLessThanOrEqual(before.size);
  const pending = new Set(addresses.filter((a) => a.endsWith("#pending")).map((a) => a.slice(0, -8)));
  for (const address of before.keys()) if (!done.includes(address)) expect(pending.has(address)).toBe(true);

  server.resetRequests();
  const again = await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target() });
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(
    /\d+ creates? an earlier run recorded before sending (was|were) resolved by create id: \d+ made/,
  );
  // Only the missing ones were created: nothing sent twice.
  expect(server.mutations().filter((r) => r.method === "POST")).toHaveLength(N - before.size);
  const after = await liveAddresses(api, "crash");
  expect(after.size).toBe(N);
  expect([...after.values()].every((n) => n === 1)).toBe(true);
  const state = await new FileStateStore(join(dir, ".tgw", "state.json"), { stack: "crash" }).read();
  expect(Object.keys(state.resources)).toHaveLength(N);
  const plan = await tgw(["plan", "-f", ".", "--detailed-exitcode"], { cwd: dir, server: target() });
  expect(plan.code).toBe(0);
}, 120_000);

it("two applies at once: each either succeeds or fails naming the lock holder; nothing is created twice", async () => {
  const dir = await manyBackends(60, "twice");
  dirs.push(dir);
  const args = ["apply", "-f", ".", "--auto-approve", "--parallelism", "2"];
  server.resetRequests();
  const runs = await Promise.all([
    tgw(args, { cwd: dir, server: target() }),
    tgw(args, { cwd: dir, server: target() }),
  ]);
  for (const r of runs) {
    if (r.code !== 0)
      expect(r.stderr).toMatch(/Error \[state_locked\]: state .*state\.json is locked by tgw apply/);
  }
  expect(runs.some((r) => r.code === 0)).toBe(true);
  expect(server.mutations().filter((r) => r.method === "POST")).toHaveLength(60);
  const counts = await liveAddresses(api, "twice");
  expect(counts.size).toBe(60);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}, 120_000);

it("an apply while another holds the lock fails naming it, or waits with --lock-timeout", async () => {
  const dir = await manyBackends(2, "locked");
  dirs.push(dir);
  const store = new FileStateStore(join(dir, ".tgw", "state.json"), { stack: "locked" });
  const unlock = await store.lock({ timeoutMs: 0, holder: "tgw apply" });
  server.resetRequests();
  const refused = await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target() });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(
    /Error \[state_locked\]: state .*state\.json is locked by tgw apply \(pid \d+/,
  );
  expect(server.mutations()).toEqual([]);
  const waiting = spawnTgw(["apply", "-f", ".", "--auto-approve", "--lock-timeout", "60s"], {
    cwd: dir,
    server: target(),
  });
  // Unlock only once the second apply says it waits (no sleep: a loaded machine may start it late).
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => waiting.on("close", resolve));
  const waitLine = /Waiting for the state lock of .*state\.json \(another tgw holds it\)\.\.\./;
  await new Promise<void>((resolve, reject) => {
    waiting.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (waitLine.test(stdout)) resolve();
    });
    waiting.on("close", () => reject(new Error(`exited without waiting for the lock:\n${stdout}`)));
  });
  expect(server.mutations()).toEqual([]);
  await unlock();
  expect(await exited).toBe(0);
  expect(server.mutations().map((r) => r.method)).toEqual(["POST", "POST"]);
}, 120_000);
