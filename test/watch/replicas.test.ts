/**
 * Highly available `tgw watch`: two replicas of one stack sharing a PostgreSQL state (a real server
 * started by this file). Exactly one leads and reconciles; the other stands by and says who leads. The
 * leader is stopped at an exact point of its apply (the replicas talk to the API through a proxy that
 * holds the eleventh POST), then killed with SIGKILL or frozen with SIGSTOP: the standby takes over
 * (short lease here) and finishes the apply; nothing is created twice, and a frozen leader that wakes
 * up writes nothing (issue 31 §3).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { liveAddresses } from "../helpers/live.js";
import { freePort } from "../helpers/ports.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { startHoldingProxy } from "../helpers/proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { scratchConfig, startWatch, type Watcher } from "./child.js";

const pg = await startTestPostgres();
let server: TestServer;
let api: ApiClient;
beforeAll(async () => {
  server = await startTestServer();
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
});
afterAll(async () => {
  await api.close();
  await server?.close();
  await pg?.stop();
});

/** Objects of the replicas' stack: 400, so that the apply is long. */
const N = 400;
/** POSTs a leader makes before its proxy holds the next one. */
const BEFORE_HOLD = 10;

/**
 * Two replicas of one stack through one proxy; resolves when one leads and its eleventh POST is held.
 * The standby makes no request to create while it stands by; `release()` lets every request through.
 */
async function startReplicas(stack: string) {
  const lines = [`stack: ${stack}`, "tunnel_group_backends:"];
  for (let i = 0; i < N; i++) lines.push(`  b${i}:`, `    description: replica ${i}`);
  const scratch = scratchConfig("tgw-watch-ha-", { "config/main.yaml": `${lines.join("\n")}\n` });
  const url = new URL((pg as NonNullable<typeof pg>).freshSchemaUrl());
  url.password = "";
  const env = { PGPASSWORD: (pg as NonNullable<typeof pg>).password, TGW_STATE_URL: url.toString() };
  const ports = [await freePort(), await freePort()];
  const proxy = await startHoldingProxy(server.url);
  proxy.holdAfter("POST", BEFORE_HOLD);
  const start = (i: number): Watcher =>
    startWatch({
      dir: scratch.dir,
      api: { url: proxy.url, token: server.token },
      env,
      args: ["--log-format", "json", "--interval", "2s", "--lease", "1500ms", "--parallelism", "1"].concat([
        "--health-port",
        String(ports[i]),
      ]),
    });
  server.resetRequests();
  const replicas = [start(0), start(1)];
  const stop = async () => {
    for (const r of replicas) r.child.kill("SIGKILL");
    await proxy.close();
    scratch.cleanup();
  };
  try {
    const isLeader = (w: Watcher) => w.events().some((e) => e.event === "leadership" && e.role === "leader");
    for (let i = 0; i < 2_000 && !replicas.some(isLeader); i++) await sleep(10);
    const l = replicas.findIndex(isLeader);
    expect(l).toBeGreaterThanOrEqual(0);
    const leader = replicas[l] as Watcher;
    const standby = replicas[1 - l] as Watcher;
    for (let i = 0; i < 6_000 && proxy.held() === 0; i++) await sleep(10);
    expect(
      proxy.held(),
      `the leader's eleventh POST is held; its log:\n${leader.lines().slice(-8).join("\n")}`,
    ).toBe(1);
    return { leader, standby, proxy, standbyPort: ports[1 - l] as number, stop };
  } catch (err) {
    // No watcher outlives a failed start.
    await stop();
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const posts = () => server.mutations().filter((r) => r.method === "POST").length;

/** Every address of `stack` is live exactly once, and the server received exactly N creates. */
async function expectEachOnce(stack: string): Promise<void> {
  const counts = await liveAddresses(api, stack);
  expect(counts.size).toBe(N);
  expect([...counts.entries()].filter(([, c]) => c !== 1)).toEqual([]);
  expect(posts()).toBe(N);
}

describe.skipIf(pg === undefined)("replicas with a PostgreSQL state", () => {
  it("one leads, one stands by; SIGKILL of the leader mid-apply: the standby takes over, nothing applied twice", async () => {
    const r = await startReplicas("ha");
    try {
      const said = await r.standby.waitForEvent((e) => e.event === "leadership" && e.role === "standby", {
        timeoutMs: 20_000,
      });
      expect(String(said.event.leader)).toMatch(new RegExp(`^tgw watch \\(pid ${r.leader.child.pid} on `));
      const health = (await (await fetch(`http://127.0.0.1:${r.standbyPort}/healthz`)).json()) as {
        status: string;
        role: { role: string; leader: { pid: number } };
      };
      expect(health.status).toBe("standby");
      expect(health.role).toMatchObject({ role: "standby", leader: { pid: r.leader.child.pid } });
      expect(posts()).toBe(BEFORE_HOLD);

      r.leader.child.kill("SIGKILL");
      await r.leader.exit;
      const killedAt = Date.now();
      // The killed leader's held create is dropped with its connection, never forwarded.
      for (let i = 0; i < 3_000 && r.proxy.held() > 0; i++) await sleep(10);
      expect(r.proxy.held()).toBe(0);
      r.proxy.release();
      await r.standby.waitForEvent((e) => e.event === "leadership" && e.role === "leader", {
        timeoutMs: 30_000,
      });
      const tookOverMs = Date.now() - killedAt;
      await r.standby.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 60_000 });
      await expectEachOnce("ha");
      const led = (await (await fetch(`http://127.0.0.1:${r.standbyPort}/healthz`)).json()) as {
        role: { role: string; leader: { pid: number } };
      };
      expect(led.role).toMatchObject({ role: "leader", leader: { pid: r.standby.child.pid } });
      console.log(`standby took over ${tookOverMs} ms after the SIGKILL (lease 1.5 s)`);
    } finally {
      await r.stop();
    }
  }, 120_000);

  it("a leader frozen (SIGSTOP) mid-apply: the standby takes both locks and applies while it is frozen; woken, it writes nothing", async () => {
    const r = await startReplicas("frozen");
    try {
      r.leader.child.kill("SIGSTOP");
      const frozenAt = Date.now();
      // The held create reaches the server while the leader is frozen, as a request in flight would.
      r.proxy.release();
      for (let i = 0; i < 3_000 && r.proxy.answered("POST") <= BEFORE_HOLD; i++) await sleep(10);
      expect(r.proxy.answered("POST")).toBe(BEFORE_HOLD + 1);

      // Without a lease on the state lock, the standby leads but cannot apply until the leader wakes.
      await r.standby.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 60_000 });
      const appliedMs = Date.now() - frozenAt;
      await expectEachOnce("frozen");

      const before = r.leader.events().length;
      r.leader.child.kill("SIGCONT");
      await r.leader.waitForEvent((e) => e.event === "leadership" && e.role === "standby", {
        from: before,
        timeoutMs: 30_000,
      });
      await sleep(500);
      await expectEachOnce("frozen");
      console.log(`the standby applied ${appliedMs} ms after the leader froze (lease 1.5 s)`);
    } finally {
      r.leader.child.kill("SIGCONT");
      await r.stop();
    }
  }, 120_000);
});
