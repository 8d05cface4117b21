/**
 * Benchmark of the reference server (issue 3): requests per second and p99 latency of GET one
 * resource, a list of 100, and a create, on loopback, next to the same figures for a bare Fastify
 * route returning a constant JSON body in the same run. The ratio is the figure to watch.
 *
 *   npx tsx bench/server.ts [--requests N] [--seconds S] [--connections C]
 *
 * Bounded: each scenario stops after N requests (default 20000) or S seconds (default 5), whichever
 * comes first, after a warm-up of up to 2000 requests (3 s). The servers run in a child process (so the load
 * generator does not share their event loop), on 127.0.0.1 only; the reference server is in memory,
 * without fixtures, logging or response checks.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import Fastify from "fastify";
import { Pool } from "undici";
import { startServer } from "../src/server/server.js";

const TOKEN = "bench-token";
const HEADERS = { authorization: `Bearer ${TOKEN}`, "service-version": "2" };

/** Child mode: start both servers, print their URLs as one JSON line, run until stdin closes. */
async function serveForBench(): Promise<void> {
  const reference = await startServer({ bootstrapToken: TOKEN });
  const bare = Fastify({ logger: false });
  const constant = {
    id: "ak_constant",
    uri: "http://127.0.0.1/api_keys/ak_constant",
    description: "",
    metadata: "",
    created_at: "2026-01-01T00:00:00Z",
    token: null,
    owner_id: "usr_admin",
  };
  bare.get("/constant", async () => constant);
  await bare.listen({ host: "127.0.0.1", port: 0 });
  const address = bare.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ reference: reference.url, bare: `http://127.0.0.1:${port}` })}\n`);
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await Promise.all([reference.close(), bare.close()]);
    process.exit(0);
  });
}

interface Figures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
}

interface Load {
  requests: number;
  seconds: number;
  connections: number;
}

/** Runs `next()` requests with `connections` in flight until the count or the time is up. */
async function measure(
  pool: Pool,
  load: Load,
  next: () => Parameters<Pool["request"]>[0],
  expected: number,
): Promise<Figures> {
  const run = async (count: number, seconds: number): Promise<number[]> => {
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    let issued = 0;
    const worker = async () => {
      while (issued < count && performance.now() < deadline) {
        issued++;
        const started = performance.now();
        const res = await pool.request(next());
        await res.body.text();
        if (res.statusCode !== expected) throw new Error(`expected ${expected}, got ${res.statusCode}`);
        latencies.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: load.connections }, worker));
    return latencies;
  };
  await run(2000, 3);
  const started = performance.now();
  const latencies = await run(load.requests, load.seconds);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { requests: latencies.length, rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "20000" },
      seconds: { type: "string", default: "5" },
      connections: { type: "string", default: "16" },
    },
  });
  const load: Load = {
    requests: Number(values.requests),
    seconds: Number(values.seconds),
    connections: Number(values.connections),
  };

  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const child = spawn(process.execPath, ["--import", tsx, fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const urls = await new Promise<{ reference: string; bare: string }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += String(d);
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0] ?? "{}"));
    });
    child.on("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });

  const reference = new Pool(urls.reference, { connections: load.connections });
  const bare = new Pool(urls.bare, { connections: load.connections });
  try {
    const post = (path: string, body: unknown) => ({
      method: "POST" as const,
      path,
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const created = await reference.request(post("/api_keys", { description: "bench" }));
    const { id } = (await created.body.json()) as { id: string };
    for (let i = 0; i < 100; i++)
      await (await reference.request(post("/ip_policies", { description: `p${i}` }))).body.text();

    const baseline = await measure(bare, load, () => ({ method: "GET", path: "/constant" }), 200);
    const rows: [string, Figures][] = [
      [
        "GET one API key",
        await measure(
          reference,
          load,
          () => ({ method: "GET", path: `/api_keys/${id}`, headers: HEADERS }),
          200,
        ),
      ],
      [
        "GET list of 100",
        await measure(
          reference,
          load,
          () => ({ method: "GET", path: "/ip_policies?limit=100", headers: HEADERS }),
          200,
        ),
      ],
      [
        "POST create",
        await measure(reference, load, () => post("/ip_policies", { description: "bench" }), 201),
      ],
    ];

    const table: string[][] = [
      ["scenario", "requests", "req/s", "p50 ms", "p99 ms", "req/s vs bare", "p99 vs bare"],
      [
        "bare Fastify constant JSON",
        String(baseline.requests),
        baseline.rps.toFixed(0),
        baseline.p50.toFixed(2),
        baseline.p99.toFixed(2),
        "1.00",
        "1.00",
      ],
      ...rows.map(([name, f]) => [
        name,
        String(f.requests),
        f.rps.toFixed(0),
        f.p50.toFixed(2),
        f.p99.toFixed(2),
        (f.rps / baseline.rps).toFixed(2),
        (f.p99 / baseline.p99).toFixed(2),
      ]),
    ];
    const widths = (table[0] ?? []).map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length)));
    const line = (r: string[]) =>
      r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
    process.stdout.write(
      `reference server benchmark: loopback, ${load.connections} connections, up to ${load.requests} requests or ${load.seconds} s per scenario\n\n`,
    );
    process.stdout.write(`${line(table[0] ?? [])}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
    for (const r of table.slice(1)) process.stdout.write(`${line(r)}\n`);
  } finally {
    await reference.close();
    await bare.close();
    child.stdin.end();
  }
}

if (process.argv.includes("--serve")) await serveForBench();
else await main();
