/**
 * Benchmark of refresh and plan (issue 5): with 1,000 and 10,000 managed resources, the requests and
 * wall time of `tgw plan` (one paginated list per collection kind), measured in the same run against
 * reading each resource with its own GET (what tools that refresh per resource do, 10 at a time), as
 * request and time ratios; and the mutating calls of a no-op apply (must be 0).
 *
 *   npx tsx bench/plan.ts [--sizes 1000,10000]
 *
 * Loopback only and bounded: the reference server runs in a child process (in memory, no fixtures,
 * no logging), one fresh server per size; sizes above 10000 are refused. Seeding the resources (an
 * apply of N creates, 16 at a time) is timed and printed too.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { ApiClient, PRODUCTION_RATE_LIMIT } from "../src/client/index.js";
import type { DesiredResource, DesiredState } from "../src/config/desired.js";
import { hasChanges, reconcile } from "../src/engine/index.js";
import { getKind } from "../src/model/index.js";
import { FileStateStore } from "../src/state/index.js";

const TOKEN = "bench-plan-token";
const STACK = "bench";

/** Child mode: start the reference server, print its URL, run until stdin closes. */
async function serve(): Promise<void> {
  const { startServer } = await import("../src/server/server.js");
  const server = await startServer({ bootstrapToken: TOKEN, logger: false });
  process.stdout.write(`${server.url}\n`);
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await server.close();
    process.exit(0);
  });
}

async function startChild(): Promise<{ url: string; stop(): void }> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const child = spawn(process.execPath, ["--import", tsx, fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, stop: () => child.stdin.end() };
}

function resource(i: number): DesiredResource {
  const name = `r${String(i).padStart(5, "0")}`;
  const [collection, kind, fields]: [string, string, Record<string, unknown>] =
    i % 2 === 0
      ? [
          "tunnel_group_backends",
          "tunnel_group_backend",
          { description: `backend ${i}`, labels: { n: String(i) } },
        ]
      : ["api_keys", "api_key", { description: `key ${i}`, metadata: { n: i } }];
  return {
    address: `${collection}.${name}`,
    kind,
    fields,
    options: { prevent_destroy: false, token_file: join(tmpdir(), "tgw-bench-tokens", `${name}.token`) },
    dependsOn: [],
    source: { file: "bench.yaml", line: 1, col: 1 },
  };
}

interface Debug {
  count(): Promise<{ total: number; mutations: number }>;
  reset(): Promise<void>;
}

function debugClient(url: string): Debug {
  const headers = { authorization: `Bearer ${TOKEN}` };
  return {
    async count() {
      const res = await fetch(`${url}/debug/requests`, { headers });
      const { requests } = (await res.json()) as { requests: { method: string }[] };
      return { total: requests.length, mutations: requests.filter((r) => r.method !== "GET").length };
    },
    async reset() {
      await fetch(`${url}/debug/requests`, { method: "DELETE", headers });
    },
  };
}

async function measure(n: number): Promise<string[]> {
  const child = await startChild();
  const dir = await mkdtemp(join(tmpdir(), "tgw-bench-"));
  const api = new ApiClient({ baseUrl: child.url, apiKey: TOKEN });
  const debug = debugClient(child.url);
  try {
    const store = new FileStateStore(join(dir, ".tgw", "state.json"), { stack: STACK, warn: () => {} });
    const desired: DesiredState = {
      stack: STACK,
      ownership: "marker",
      resources: Array.from({ length: n }, (_, i) => resource(i)).sort((a, b) =>
        a.address < b.address ? -1 : 1,
      ),
      files: [],
      configDir: dir,
    };
    let t = performance.now();
    await reconcile({ desired, api, store, options: { parallelism: 16 } });
    const seedMs = performance.now() - t;

    // tgw: refresh by lists, then plan.
    await debug.reset();
    t = performance.now();
    const { plan } = await reconcile({ desired, api, store, options: { mode: "plan" } });
    const tgwMs = performance.now() - t;
    const tgwRequests = (await debug.count()).total;
    if (hasChanges(plan)) throw new Error("the plan after seeding has changes");

    // Per-resource refresh: one GET per managed resource, 10 at a time.
    const state = await store.read();
    await debug.reset();
    const limit = pLimit(10);
    t = performance.now();
    await Promise.all(
      Object.values(state.resources).map((r) =>
        limit(() => api.get(`${getKind(r.kind).path}/${encodeURIComponent(r.id)}`)),
      ),
    );
    const perMs = performance.now() - t;
    const perRequests = (await debug.count()).total;

    // A no-op apply makes no mutating call.
    await debug.reset();
    await reconcile({ desired, api, store, options: { mode: "apply" } });
    const noop = (await debug.count()).mutations;

    // At the production rate limit (120 requests a minute) the request count alone sets the floor.
    const atLimit = (requests: number) =>
      minutes((requests / PRODUCTION_RATE_LIMIT.requests) * PRODUCTION_RATE_LIMIT.windowMs);
    return [
      String(n),
      `${(seedMs / 1000).toFixed(1)}s`,
      String(tgwRequests),
      String(perRequests),
      `${(perRequests / tgwRequests).toFixed(1)}x`,
      `${Math.round(tgwMs)}ms`,
      `${Math.round(perMs)}ms`,
      `${(perMs / tgwMs).toFixed(1)}x`,
      `${atLimit(tgwRequests)} vs ${atLimit(perRequests)}`,
      String(noop),
    ];
  } finally {
    await api.close();
    child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `53s`, `1m24s`, `1h23m`. */
function minutes(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { serve: { type: "boolean" }, sizes: { type: "string" } } });
  if (values.serve) return serve();
  const sizes = (values.sizes ?? "1000,10000").split(",").map((s) => Number(s.trim()));
  for (const n of sizes) {
    if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new Error(`size ${n}: expected 1..10000`);
  }
  const header = [
    "resources",
    "seed apply",
    "tgw requests",
    "per-GET requests",
    "request ratio",
    "tgw plan",
    "per-GET refresh",
    "time ratio",
    "at 120 req/min",
    "no-op apply mutations",
  ];
  const rows: string[][] = [];
  for (const n of sizes) {
    process.stderr.write(`measuring ${n} resources...\n`);
    rows.push(await measure(n));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  process.stdout.write(`${line(header)}\n${rows.map(line).join("\n")}\n`);
  process.stdout.write(
    "tgw plan = refresh (one paginated list per collection kind, 100 per page) + plan; per-GET refresh = one GET per managed resource, 10 in flight.\n" +
      "at 120 req/min = the least time those requests take against the production rate limit (tgw vs per-GET).\n",
  );
}

await main();
