/**
 * Highly available `tgw watch`: two replicas of one stack sharing a PostgreSQL state (a real server
 * started by this file). Exactly one leads and reconciles; the other stands by and says who leads. The
 * leader is killed with SIGKILL in the middle of an apply: the standby takes over (short lease here)
 * and finishes the apply; nothing is created twice.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { decodeMetadata } from "../../src/model/index.js";
import { startTestPostgres } from "../helpers/postgres.js";
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

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function liveAddresses(stack: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const b of await api.listAll<{ metadata: string }>("/backends/tunnel_group", "backends")) {
    const m = decodeMetadata(b.metadata).marker;
    if (m?.stack === stack) counts.set(m.address, (counts.get(m.address) ?? 0) + 1);
  }
  return counts;
}

describe.skipIf(pg === undefined)("replicas with a PostgreSQL state", () => {
  it("one leads, one stands by; SIGKILL of the leader mid-apply: the standby takes over, nothing applied twice", async () => {
    if (pg === undefined) return;
    // Enough that the leader is still applying when a poll every 10 ms sees its tenth POST, on a loaded
    // machine too (with 120, a fast apply could finish between two polls).
    const n = 400;
    const lines = ["stack: ha", "tunnel_group_backends:"];
    for (let i = 0; i < n; i++) lines.push(`  b${i}:`, `    description: replica ${i}`);
    const scratch = scratchConfig("tgw-watch-ha-", { "config/main.yaml": `${lines.join("\n")}\n` });
    const url = new URL(pg.freshSchemaUrl());
    url.password = "";
    const env = { PGPASSWORD: pg.password, TGW_STATE_URL: url.toString() };
    const ports = [await freePort(), await freePort()];
    const start = (port: number): Watcher =>
      startWatch({
        dir: scratch.dir,
        api: server,
        env,
        args: [
          "--log-format",
          "json",
          "--interval",
          "2s",
          "--lease",
          "1500ms",
          "--parallelism",
          "1",
          "--health-port",
          String(port),
        ],
      });
    server.resetRequests();
    const replicas = [start(ports[0] as number), start(ports[1] as number)];
    try {
      const isLeader = (w: Watcher) =>
        w.events().some((e) => e.event === "leadership" && e.role === "leader");
      for (let i = 0; i < 2_000 && !replicas.some(isLeader); i++) await new Promise((r) => setTimeout(r, 10));
      const leader = replicas.find(isLeader) as Watcher;
      const standby = replicas.find((w) => w !== leader) as Watcher;
      const standbyPort = ports[replicas.indexOf(standby)];
      const said = await standby.waitForEvent((e) => e.event === "leadership" && e.role === "standby", {
        timeoutMs: 20_000,
      });
      expect(String(said.event.leader)).toMatch(new RegExp(`^tgw watch \\(pid ${leader.child.pid} on `));
      const health = (await (await fetch(`http://127.0.0.1:${standbyPort}/healthz`)).json()) as {
        status: string;
        role: { role: string; leader: { pid: number } };
      };
      expect(health.status).toBe("standby");
      expect(health.role).toMatchObject({ role: "standby", leader: { pid: leader.child.pid } });

      // Kill the leader in the middle of its apply.
      const posts = () => server.mutations().filter((r) => r.method === "POST").length;
      for (let i = 0; i < 3_000 && posts() < 10; i++) await new Promise((r) => setTimeout(r, 10));
      expect(posts()).toBeGreaterThanOrEqual(10);
      expect(posts()).toBeLessThan(n);
      leader.child.kill("SIGKILL");
      await leader.exit;
      const killedAt = Date.now();

      await standby.waitForEvent((e) => e.event === "leadership" && e.role === "leader", {
        timeoutMs: 30_000,
      });
      const tookOverMs = Date.now() - killedAt;
      await standby.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 60_000 });
      const counts = await liveAddresses("ha");
      expect(counts.size).toBe(n);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      expect(posts()).toBe(n);
      const led = (await (await fetch(`http://127.0.0.1:${standbyPort}/healthz`)).json()) as {
        role: { role: string; leader: { pid: number } };
      };
      expect(led.role).toMatchObject({ role: "leader", leader: { pid: standby.child.pid } });
      console.log(`standby took over ${tookOverMs} ms after the SIGKILL (lease 1.5 s)`);
    } finally {
      for (const r of replicas) r.child.kill("SIGKILL");
      scratch.cleanup();
    }
  }, 120_000);
});
