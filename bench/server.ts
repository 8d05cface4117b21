/**
 * Benchmark of the reference server (issue 13): requests per second of GET one resource, a list of
 * 100 and a create, each next to its bare Fastify counterpart, measured side by side in the same run;
 * then one scenario past 1,000,000 requests that shows whether throughput stays flat (the request
 * recorder once made every request O(n) after 100,000).
 *
 * Counterparts: the GETs are paired with a bare `GET /constant` answering a constant JSON body; the
 * create with a bare `POST /constant` that receives the same JSON body and headers (Fastify's default
 * JSON parser) and answers 201 with a constant body of the create's size. The create's goal is against
 * the bare POST; its ratio to the bare GET, measured in the same rounds, is printed too (column
 * `vs bare GET`), the figure this benchmark gave before 2026-11-25 (bench/README.md).
 *
 *   npx tsx bench/server.ts [--quick] [--rounds 5] [--seconds 2] [--connections 16]
 *                           [--long 1100000] [--segments 11] [--profile DIR] [--routes list,create,get]
 *
 * Side by side: each round measures, for every route, its bare counterpart and the route one after
 * the other (A B, then B A in the next round, so a drift of the machine's load hits both), `--seconds`
 * each; for the create the bare GET is measured in the same round too (A B C, then C B A). The ratio
 * of a round is route / bare of that round; printed are the medians over the rounds, the ratio next to
 * its goal, and the server process's CPU time per request (user + system, less sensitive to other load
 * on the machine than requests per second).
 *
 * Long run: `--long` GETs of one API key in `--segments` equal segments; after each segment a bare
 * probe of 1 s, so that each segment's ratio to bare removes the machine's drift. Printed: every
 * segment (with the recorder's size, bounded), and last / first segment.
 *
 * `--quick`: 3 rounds of 0.5 s and a long run of 220,000 requests (still past the recorder's 100,000).
 * `--long 0`: no long run. `--routes create`: only the routes named (of `list`, `create`, `get`), e.g.
 * more rounds of one route while working on it.
 * `--profile DIR`: the server process writes its V8 CPU profile (`--cpu-prof`) to DIR at the end.
 *
 * Bounded and loopback only: 127.0.0.1, every measure stops at its time (a long segment after 120 s).
 * Both servers (the reference one and the bare routes) run in one child process, so the load
 * generator (undici, here) does not share their event loop; the reference server is in memory, without fixtures, logging or response checks, with
 * the bootstrap admin token. The child answers `cpu` on stdin with its CPU time and recorder size.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { median } from "./stats.js";

const TOKEN = "bench-token";
const HEADERS = { authorization: `Bearer ${TOKEN}`, "service-version": "2" };
/** Longest a segment of the long run may take before the run is called off. */
const SEGMENT_TIMEOUT_S = 120;
/** The bare probe after each segment of the long run. */
const PROBE_S = 1;

/** What the child reports on `cpu`. */
interface ChildStats {
  /** CPU time of the process since it started, user + system, in microseconds. */
  cpuUs: number;
  /** Entries the request recorder holds. */
  recorded: number;
}

/** Child mode: start both servers, print their URLs as one JSON line, answer `cpu`, stop at stdin's end. */
async function serveForBench(): Promise<void> {
  const [{ default: Fastify }, { startServer }] = await Promise.all([
    import("fastify"),
    import("../src/server/server.js"),
  ]);
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
  // The create's counterpart: the create response's shape and size (187 bytes with this port's URL).
  const created = {
    id: "ipp_1xW9pzcOiIFtsv7qHAqqyKkDR28",
    uri: "http://127.0.0.1:34777/ip_policies/ipp_1xW9pzcOiIFtsv7qHAqqyKkDR28",
    created_at: "2026-11-25T10:02:51Z",
    description: "bench",
    metadata: "",
  };
  bare.get("/constant", async () => constant);
  bare.post("/constant", async (_request, reply) => reply.code(201).send(created));
  await bare.listen({ host: "127.0.0.1", port: 0 });
  const address = bare.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ reference: reference.url, bare: `http://127.0.0.1:${port}` })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on("line", () => {
    const { user, system } = process.cpuUsage();
    const stats: ChildStats = { cpuUs: user + system, recorded: reference.app.recordedRequests.length };
    process.stdout.write(`${JSON.stringify(stats)}\n`);
  });
  lines.on("close", async () => {
    await Promise.all([reference.close(), bare.close()]);
    process.exit(0);
  });
}

/** The child process and a way to ask it for its figures. */
interface Child {
  urls: { reference: string; bare: string };
  stats(): Promise<ChildStats>;
  stop(): void;
}

async function startChild(profileDir: string | undefined): Promise<Child> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const profile = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
  const child = spawn(
    process.execPath,
    [...profile, "--import", tsx, fileURLToPath(import.meta.url), "--serve"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const waiting: ((line: string) => void)[] = [];
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`))),
  );
  exited.catch(() => {});
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(line));
  const nextLine = () => Promise.race([new Promise<string>((r) => waiting.push(r)), exited]);
  const urls = JSON.parse(await nextLine()) as Child["urls"];
  return {
    urls,
    stats: async () => {
      const line = nextLine();
      child.stdin.write("cpu\n");
      return JSON.parse(await line) as ChildStats;
    },
    stop: () => child.stdin.end(),
  };
}

type RequestOptions = Parameters<Pool["request"]>[0];

/** One route under load: where to send it and what status it must answer. */
interface Target {
  name: string;
  pool: Pool;
  next: () => RequestOptions;
  status: number;
}

/** Figures of one measure. */
interface Sample {
  requests: number;
  rps: number;
  /** Server process CPU per request, microseconds. */
  cpuUs: number;
  /** 99th percentile latency, milliseconds. */
  p99: number;
}

/**
 * Sends requests to `target` with `connections` in flight until `count` were answered or `seconds`
 * passed, whichever comes first. @throws Error on a status other than the target's
 */
async function measure(
  child: Child,
  target: Target,
  connections: number,
  limits: { count?: number; seconds: number },
): Promise<Sample> {
  const count = limits.count ?? Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  const before = await child.stats();
  const started = performance.now();
  const deadline = started + limits.seconds * 1000;
  let issued = 0;
  const worker = async () => {
    while (issued < count && performance.now() < deadline) {
      issued++;
      const sent = performance.now();
      const res = await target.pool.request(target.next());
      await res.body.text();
      if (res.statusCode !== target.status) {
        throw new Error(`${target.name}: expected ${target.status}, got ${res.statusCode}`);
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const after = await child.stats();
  latencies.sort((a, b) => a - b);
  const n = latencies.length;
  return {
    requests: n,
    rps: n / elapsed,
    cpuUs: n === 0 ? 0 : (after.cpuUs - before.cpuUs) / n,
    p99: latencies[Math.min(n - 1, Math.floor(n * 0.99))] ?? 0,
  };
}

/** Prints rows as a table, first column left-aligned, the others right-aligned. */
function printTable(rows: string[][]): void {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  process.stdout.write(`${line(rows[0] ?? [])}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

interface Options {
  rounds: number;
  seconds: number;
  connections: number;
  long: number;
  segments: number;
  profile: string | undefined;
  routes: string[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      seconds: { type: "string" },
      connections: { type: "string", default: "16" },
      long: { type: "string" },
      segments: { type: "string", default: "11" },
      profile: { type: "string" },
      routes: { type: "string", default: "list,create,get" },
    },
  });
  const quick = values.quick === true;
  const o: Options = {
    rounds: Number(values.rounds ?? (quick ? 3 : 5)),
    seconds: Number(values.seconds ?? (quick ? 0.5 : 2)),
    connections: Number(values.connections),
    long: Number(values.long ?? (quick ? 220_000 : 1_100_000)),
    segments: Number(values.segments),
    profile: values.profile,
    routes: (values.routes ?? "").split(","),
  };
  for (const [name, v] of Object.entries(o)) {
    if (name === "profile" || name === "routes") continue;
    if (!(Number.isFinite(v) && ((v as number) > 0 || (name === "long" && v === 0)))) {
      throw new Error(`--${name} must be a positive number`);
    }
  }
  const unknown = o.routes.filter((r) => !["list", "create", "get"].includes(r));
  if (unknown.length > 0 || o.routes.length === 0) throw new Error("--routes takes list, create and get");
  if (o.long > 5_000_000) throw new Error("--long is at most 5,000,000 requests");
  return o;
}

/** A route and what it is compared with. */
interface Pairing {
  route: Target;
  /** Its bare counterpart: the ratio and the goal are against it. */
  bare: Target;
  goal: number;
  /** The bare GET, also measured in each round when `bare` is another route (the create's bare POST). */
  bareGet?: Target;
}

/** Figures of one round of a pairing. */
interface Round {
  bare: Sample;
  route: Sample;
  bareGet: Sample;
}

/** The side-by-side rounds: each route and its bare counterpart, alternating, medians and ratios. */
async function sideBySide(child: Child, o: Options, pairings: Pairing[]): Promise<void> {
  const targets = new Set(pairings.flatMap((p) => [p.bare, p.route, ...(p.bareGet ? [p.bareGet] : [])]));
  for (const t of targets) await measure(child, t, o.connections, { seconds: 1 });
  const samples = new Map<Pairing, Round[]>(pairings.map((p) => [p, []]));
  for (let round = 0; round < o.rounds; round++) {
    for (const p of pairings) {
      const order = [p.bare, p.route, ...(p.bareGet ? [p.bareGet] : [])];
      if (round % 2 === 1) order.reverse();
      const got = new Map<Target, Sample>();
      for (const t of order) got.set(t, await measure(child, t, o.connections, { seconds: o.seconds }));
      const bare = got.get(p.bare) as Sample;
      samples.get(p)?.push({
        bare,
        route: got.get(p.route) as Sample,
        bareGet: p.bareGet ? (got.get(p.bareGet) as Sample) : bare,
      });
    }
  }
  process.stdout.write(
    `\nside by side: ${o.rounds} rounds of ${o.seconds} s per side, ${o.connections} connections; medians over the rounds\n\n`,
  );
  const rows = [
    [
      "route",
      "bare",
      "req/s",
      "bare req/s",
      "ratio",
      "goal",
      "",
      "vs bare GET",
      "CPU µs/req",
      "bare CPU µs/req",
      "CPU ratio",
      "p99 ms",
      "bare p99 ms",
    ],
  ];
  for (const p of pairings) {
    const s = samples.get(p) ?? [];
    const ratio = median(s.map((x) => x.route.rps / x.bare.rps));
    const cpu = median(s.map((x) => x.route.cpuUs));
    const bareCpu = median(s.map((x) => x.bare.cpuUs));
    rows.push([
      p.route.name,
      p.bare.name,
      fmt(median(s.map((x) => x.route.rps))),
      fmt(median(s.map((x) => x.bare.rps))),
      fmt(ratio, 2),
      `>= ${fmt(p.goal, 2)}`,
      ratio >= p.goal ? "met" : "NOT MET",
      fmt(median(s.map((x) => x.route.rps / x.bareGet.rps)), 2),
      fmt(cpu),
      fmt(bareCpu),
      fmt(bareCpu / cpu, 2),
      fmt(median(s.map((x) => x.route.p99)), 2),
      fmt(median(s.map((x) => x.bare.p99)), 2),
    ]);
  }
  printTable(rows);
  process.stdout.write(
    "\nratio: route req/s / its bare counterpart's req/s in the same round (the goal's figure); vs bare GET: route req/s / bare GET req/s in the same round (the create's figure before 2026-11-25); CPU ratio: bare CPU per request / route CPU per request (server process)\n",
  );
}

/** The long run: `o.long` GETs in segments, each followed by a bare probe. */
async function longRun(child: Child, o: Options, bare: Target, route: Target): Promise<void> {
  const size = Math.ceil(o.long / o.segments);
  const rows = [["requests", "req/s", "CPU µs/req", "bare req/s", "vs bare", "recorder holds"]];
  const done: { rps: number; ratio: number; cpuUs: number }[] = [];
  process.stdout.write(
    `\nlong run: ${fmt(o.long)} x ${route.name} in ${o.segments} segments of ${fmt(size)}, each followed by a bare probe\n\n`,
  );
  let total = 0;
  for (let i = 0; i < o.segments; i++) {
    const s = await measure(child, route, o.connections, { count: size, seconds: SEGMENT_TIMEOUT_S });
    if (s.requests < size) throw new Error(`segment ${i + 1} did not finish in ${SEGMENT_TIMEOUT_S} s`);
    const probe = await measure(child, bare, o.connections, { seconds: PROBE_S });
    const { recorded } = await child.stats();
    total += s.requests;
    done.push({ rps: s.rps, ratio: s.rps / probe.rps, cpuUs: s.cpuUs });
    rows.push([
      `${fmt(total - s.requests + 1)}-${fmt(total)}`,
      fmt(s.rps),
      fmt(s.cpuUs),
      fmt(probe.rps),
      fmt(s.rps / probe.rps, 2),
      fmt(recorded),
    ]);
  }
  printTable(rows);
  const first = done[0];
  const last = done[done.length - 1];
  if (first && last) {
    process.stdout.write(
      `\nlast / first segment: req/s ${fmt(last.rps / first.rps, 2)}, vs bare ${fmt(last.ratio / first.ratio, 2)}, CPU per request ${fmt(last.cpuUs / first.cpuUs, 2)} (flat: about 1.00)\n`,
    );
  }
}

async function main(): Promise<void> {
  const o = options();
  const child = await startChild(o.profile);
  const reference = new Pool(child.urls.reference, { connections: o.connections });
  const barePool = new Pool(child.urls.bare, { connections: o.connections });
  try {
    const post = (path: string, body: unknown): RequestOptions => ({
      method: "POST",
      path,
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const created = await reference.request(post("/api_keys", { description: "bench" }));
    const { id } = (await created.body.json()) as { id: string };
    for (let i = 0; i < 100; i++) {
      await (
        await reference.request(post("/ip_policies", { description: `p${i}`, metadata: "" }))
      ).body.text();
    }
    const bare: Target = {
      name: "bare GET",
      pool: barePool,
      next: () => ({ method: "GET", path: "/constant" }),
      status: 200,
    };
    const createBody = { description: "bench", metadata: "" };
    const barePost: Target = {
      name: "bare POST",
      pool: barePool,
      next: () => post("/constant", createBody),
      status: 201,
    };
    const getOne: Target = {
      name: "GET one API key",
      pool: reference,
      next: () => ({ method: "GET", path: `/api_keys/${id}`, headers: HEADERS }),
      status: 200,
    };
    const list: Target = {
      name: "GET list of 100",
      pool: reference,
      next: () => ({ method: "GET", path: "/ip_policies?limit=100", headers: HEADERS }),
      status: 200,
    };
    const create: Target = {
      name: "POST create",
      pool: reference,
      next: () => post("/ip_policies", createBody),
      status: 201,
    };
    process.stdout.write(
      `reference server benchmark (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, loopback)\n`,
    );
    const pairings: [string, Pairing][] = [
      ["list", { route: list, bare, goal: 0.3 }],
      ["create", { route: create, bare: barePost, goal: 0.4, bareGet: bare }],
      ["get", { route: getOne, bare, goal: 0.7 }],
    ];
    await sideBySide(
      child,
      o,
      pairings.filter(([name]) => o.routes.includes(name)).map(([, p]) => p),
    );
    if (o.long > 0) await longRun(child, o, bare, getOne);
  } finally {
    await reference.close();
    await barePool.close();
    child.stop();
  }
}

if (process.argv.includes("--serve")) await serveForBench();
else await main();
