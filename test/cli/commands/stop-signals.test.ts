/**
 * SIGTERM and SIGHUP stop `tgw apply` (and `destroy`, `apply PLANFILE`, `apply --refresh-only`) as
 * Ctrl-C does (issue 43 §7): nothing new starts, the calls in flight finish and are recorded, token
 * files written, the summary says what was done and not started, and the exit code is 128 + the
 * signal's number (143, 129). A second signal exits at once, the answers received recorded first.
 *
 * A holding proxy in front of the reference server keeps creates in flight exactly when the signal
 * comes (no timer: a loaded machine only makes it slower).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../../src/client/index.js";
import { FileStateStore, type StateSnapshot } from "../../../src/state/index.js";
import { API_KEYS, liveIds, TUNNEL_GROUP_BACKENDS } from "../../helpers/live.js";
import { type HoldingProxy, startHoldingProxy } from "../../helpers/proxy.js";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { spawnTgw, tgw } from "../tgw.js";

let server: TestServer;
let api: ApiClient;
const cleanup: (() => Promise<void>)[] = [];
beforeAll(async () => {
  server = await startTestServer();
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
});
afterAll(async () => {
  for (const f of cleanup) await f();
  await api.close();
  await server.close();
});

const KEYS = 300;
const BACKENDS = 50;
/** tgw's default parallelism: the creates in flight while the proxy holds. */
const IN_FLIGHT = 4;

/** A configuration directory of stack `stack`: `keys` API keys (k000...) and `backends` backends (b00...). */
async function stackDir(stack: string, keys: number, backends: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tgw-stop-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const lines = [`stack: ${stack}`];
  if (keys > 0) lines.push("api_keys:");
  for (let i = 0; i < keys; i++) lines.push(`  k${String(i).padStart(3, "0")}: {description: key ${i}}`);
  if (backends > 0) lines.push("tunnel_group_backends:");
  for (let i = 0; i < backends; i++)
    lines.push(`  b${String(i).padStart(2, "0")}: {description: backend ${i}}`);
  await writeFile(join(dir, "tgw.yaml"), `${lines.join("\n")}\n`);
  return dir;
}

async function holdingProxy(): Promise<HoldingProxy> {
  const proxy = await startHoldingProxy(server.url);
  cleanup.push(() => proxy.close());
  return proxy;
}

/** Resolves once `check()` holds (polled; the test's timeout bounds a wait that never ends). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** A started tgw: its output so far, and its exit. */
function started(args: string[], dir: string, url: string) {
  const child = spawnTgw(args, { cwd: dir, server: { url, token: server.token }, env: { CI: "true" } });
  const out = { stdout: "", stderr: "", ended: false };
  child.stdout?.on("data", (d: Buffer) => {
    out.stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out.stderr += d.toString();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      out.ended = true;
      resolve(code);
    }),
  );
  return { child, out, exit };
}

/** Live objects carrying the marker of `stack`: how many carry each address, and their ids by address. */
async function live(stack: string): Promise<{ counts: Map<string, number>; ids: Map<string, string> }> {
  const byAddress = [...(await liveIds(api, stack, { lists: [API_KEYS, TUNNEL_GROUP_BACKENDS] }))];
  return {
    counts: new Map(byAddress.map(([address, ids]) => [address, ids.length])),
    ids: new Map(byAddress.map(([address, ids]) => [address, ids.at(-1) as string])),
  };
}

function readState(dir: string, stack: string): Promise<StateSnapshot> {
  return new FileStateStore(join(dir, ".tgw", "state.json"), { stack }).read();
}

/** The ids the state records, by address. */
/** Address -> id of the objects the state records (pending creates aside: docs/state.md > Pending creates). */
function recordedIds(state: StateSnapshot): Map<string, string> {
  return new Map(
    Object.values(state.resources)
      .filter((r) => !r.address.endsWith("#pending"))
      .map((r) => [r.address, r.id]),
  );
}

/** Each recorded API key's token file holds a token the server takes, and it is that key's. */
async function expectWorkingTokens(dir: string, state: StateSnapshot): Promise<void> {
  const keys = Object.values(state.resources).filter((r) => r.kind === "api_key");
  const broken: string[] = [];
  for (const r of keys) {
    const file = join(dir, ".tgw", "secrets", `${r.address.slice("api_keys.".length)}.token`);
    const token = (await readFile(file, "utf8").catch(() => "")).trim();
    const res = await fetch(`${server.url}/api_keys/${r.id}`, {
      headers: { authorization: `Bearer ${token}`, "service-version": "2" },
    });
    await res.arrayBuffer();
    if (res.status !== 200 || server.keyOf(token) !== r.id) broken.push(`${r.address}: ${res.status}`);
  }
  expect(broken).toEqual([]);
}

/** Every configured address lives exactly once, nothing else carries the stack's marker, the state records them. */
async function expectConverged(dir: string, stack: string, addresses: string[]): Promise<StateSnapshot> {
  const { counts, ids } = await live(stack);
  expect([...counts.keys()].sort()).toEqual([...addresses].sort());
  expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  const state = await readState(dir, stack);
  expect(recordedIds(state)).toEqual(ids);
  return state;
}

function addressesOf(keys: number, backends: number): string[] {
  return [
    ...Array.from({ length: keys }, (_, i) => `api_keys.k${String(i).padStart(3, "0")}`),
    ...Array.from({ length: backends }, (_, i) => `tunnel_group_backends.b${String(i).padStart(2, "0")}`),
  ];
}

it.each([
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const)(
  "%s mid-apply: the calls in flight finish with their tokens, exit %i; one more apply converges",
  async (signal, code) => {
    const stack = `stop-${signal.toLowerCase()}`;
    const dir = await stackDir(stack, KEYS, BACKENDS);
    const proxy = await holdingProxy();
    const done = 20;
    proxy.holdAfter("POST", done);
    const run = started(["apply", "-f", ".", "--auto-approve"], dir, proxy.url);
    await until(() => run.out.ended || proxy.held() === IN_FLIGHT);
    run.child.kill(signal);
    await until(
      () =>
        run.out.ended || run.out.stderr.includes(`Stopped by ${signal}: letting the calls in flight finish`),
    );
    proxy.release();
    expect(await run.exit).toBe(code);

    const total = KEYS + BACKENDS;
    const finished = done + IN_FLIGHT;
    expect(run.out.stderr).toContain("Error [apply_failed]: apply interrupted\nDone: ");
    expect(run.out.stderr).toContain(`${finished} done, ${total - finished} not started (`);
    expect(run.out.stderr).toContain("The state records what was done; run apply again to continue.");
    expect(run.out.stdout).not.toContain("Apply complete");
    // What was done, in flight included, is recorded, and each key's token is in its file.
    const stopped = await readState(dir, stack);
    const { ids } = await live(stack);
    expect(ids.size).toBe(finished);
    expect(recordedIds(stopped)).toEqual(ids);
    await expectWorkingTokens(dir, stopped);

    // Unattended, through the proxy (the state records the API it was written against), holding nothing.
    const again = await tgw(["apply", "-f", ".", "--auto-approve"], {
      cwd: dir,
      server: { url: proxy.url, token: server.token },
      env: { CI: "true" },
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Apply complete: ${total - finished} created, 0 updated`);
    expect(again.stderr).not.toMatch(/lost/i);
    const state = await expectConverged(dir, stack, addressesOf(KEYS, BACKENDS));
    await expectWorkingTokens(dir, state);
  },
);

it("a second signal exits at once, calls still in flight, with every answer received recorded (apply PLANFILE)", async () => {
  const stack = "stop-twice";
  const dir = await stackDir(stack, 0, 60);
  const proxy = await holdingProxy();
  const target = { url: proxy.url, token: server.token };
  const plan = await tgw(["plan", "-f", ".", "--out", "tgw.plan"], { cwd: dir, server: target });
  expect(plan.code).toBe(0);
  proxy.holdAfter("POST", 10);
  const run = started(["apply", "tgw.plan"], dir, proxy.url);
  await until(() => run.out.ended || proxy.held() === IN_FLIGHT);
  run.child.kill("SIGTERM");
  await until(
    () => run.out.ended || run.out.stderr.includes("Stopped by SIGTERM: letting the calls in flight finish"),
  );
  run.child.kill("SIGINT");
  // The held calls are never answered: the process must not wait for them.
  expect(await run.exit).toBe(130);
  expect(run.out.stderr).toContain("SIGINT again: exiting once the answers received are recorded.");
  await until(() => proxy.held() === 0);
  proxy.release();
  // Every answer tgw received is recorded; the calls in flight were never made (the proxy dropped them).
  const { ids } = await live(stack);
  expect(ids.size).toBe(proxy.answered("POST"));
  const stopped = await readState(dir, stack);
  expect(recordedIds(stopped)).toEqual(ids);
  // Exited at once: the creates not answered are still pending, for the next run to resolve.
  const pending = Object.keys(stopped.resources).filter((a) => a.endsWith("#pending"));
  expect(pending.length).toBe(60 - ids.size);

  const again = await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target });
  expect(again.code).toBe(0);
  await expectConverged(dir, stack, addressesOf(0, 60));
});

it.each([
  [["destroy", "-f", ".", "--auto-approve"], "SIGHUP", 129],
  [["apply", "-f", ".", "--refresh-only", "--auto-approve"], "SIGTERM", 143],
] as const)(
  "%j waiting for the state lock: %s stops it before anything is applied, exit %i",
  async (args, signal, code) => {
    const stack = `stop-${args[0]}-${signal.toLowerCase()}`;
    const dir = await stackDir(stack, 0, 2);
    const target = { url: server.url, token: server.token };
    expect((await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target })).code).toBe(0);
    const before = await readState(dir, stack);
    const store = new FileStateStore(join(dir, ".tgw", "state.json"), { stack });
    const unlock = await store.lock({ timeoutMs: 0, holder: "tgw apply" });
    try {
      server.resetRequests();
      const run = started([...args, "--lock-timeout", "10m"], dir, server.url);
      await until(() => run.out.ended || /Waiting for the state lock/.test(run.out.stdout + run.out.stderr));
      run.child.kill(signal);
      expect(await run.exit).toBe(code);
      expect(run.out.stderr).toContain(`Stopped by ${signal}.`);
      expect(run.out.stderr).toContain(
        `Error [interrupted]: stopped by ${signal} before anything was applied`,
      );
      expect(server.mutations()).toEqual([]);
    } finally {
      await unlock();
    }
    expect(await readState(dir, stack)).toEqual(before);
  },
);
