/**
 * Benchmark of `tgw plan` as the user runs it (issue 13): the whole CLI process (start, config load,
 * state, refresh, plan) on a configuration of N objects covering every kind and modules
 * (./workload.ts), against `tgw serve` in its own process on loopback. Runs alternate, in one loop,
 * `node -e 0` (the floor of any Node.js command), `tgw validate` (start and config load) and
 * `tgw plan --detailed-exitcode` (must exit 0: no changes); medians are printed with the goal.
 *
 * First, start-up: `tgw --version` and `tgw validate -f examples/complete` against `node -e 0`
 * (goal: at most 2x).
 *
 * Then, per size, the production rate limit, measured: the server restarts on the same data with
 * `--rate-limit 120/60s` and `tgw plan` runs 8 times back to back on one key, as CI jobs do (with
 * `TGW_RATE_LIMIT=120/60s`, the limit tgw keeps against a remote API; on loopback it keeps none); the
 * figure is each run's time and the 429 answers the server gave (goal: none, the runs share the
 * key's budget).
 *
 *   npm run build && npx tsx bench/plan.ts [--sizes 1000,10000] [--runs 5] [--rate-runs 8] [--quick]
 *     [--vs other/bin/tgw.js] [--rtt 50]
 *
 * `--vs` times another build of tgw (its `bin/tgw.js`) in the same loops, one run after this build's,
 * for before/after figures of one run: validate and plan rows for it, and this build's ratio to it.
 *
 * `--rtt MS`: then, per size, `tgw plan` through ./latency-proxy.ts, which adds MS of round trip (the
 * server restarted with the proxy as its public URL): the time a user far from the API waits, and the
 * requests each plan sends (issue 30's goal: 10,000 objects within 2.0 s at 50 ms), alternated with
 * plans through the same proxy with no delay: the difference is the network's share (the goal's:
 * 2.0 s less the 1.20 s the plan took on loopback when the goal was set).
 *
 * `tgw plan` runs under GNU time (`/usr/bin/time`, when there is one), which reports its peak resident
 * memory; with two sizes or more, the last line compares each size's plan with the first's (issue 30:
 * 100,000 objects within 12x of 10,000, under 1.5 GB).
 *
 * Loopback only; sizes above 100,000 are refused. Seeding (one `tgw apply` of N creates) is timed too.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startLatencyProxy } from "./latency-proxy.js";
import { median } from "./stats.js";
import { writeWorkload } from "./workload.js";

const TGW = fileURLToPath(new URL("../bin/tgw.js", import.meta.url));
const TOKEN = "bench-plan-token-0123456789";
const GOALS: Record<number, number> = { 10000: 1000, 30000: 3500 };

interface Run {
  ms: number;
  code: number | null;
  out: string;
  /** Peak resident memory in MB (`withRss` runs under GNU time). */
  rssMb?: number;
}

const GNU_TIME = "/usr/bin/time";
const RSS_LINE = /tgw-peak-rss-kb (\d+)\s*$/;

/**
 * Runs `node args...` to its end; wall time in ms from spawn to exit. With `withRss`, under GNU time
 * (when the machine has it) for the peak resident memory.
 */
function run(args: string[], env: NodeJS.ProcessEnv, cwd?: string, withRss = false): Promise<Run> {
  const timed = withRss && existsSync(GNU_TIME);
  const [command, argv] = timed
    ? [GNU_TIME, ["-f", "tgw-peak-rss-kb %M", process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(command, argv, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      const ms = performance.now() - t;
      const rss = timed ? RSS_LINE.exec(out) : null;
      resolve({ ms, code, out, ...(rss ? { rssMb: Number(rss[1]) / 1024 } : {}) });
    });
  });
}

/** Each size's median plan time and highest peak memory, for the comparison of sizes. */
const planned: { n: number; ms: number; rssMb: number | undefined }[] = [];

/** `tgw serve` on `port` (default: a free one) with the workload's fixtures and a data file; resolves with its URL. */
async function serve(dir: string, fixtures: string, rateLimit?: string, port = "0", publicUrl?: string) {
  const args = [TGW, "serve", "--port", port, "--data", join(dir, "api.sqlite"), "--fixtures", fixtures];
  if (publicUrl) args.push("--public-url", publicUrl);
  args.push("--log-level", "error", ...(rateLimit ? ["--rate-limit", rateLimit] : []));
  const env = { ...process.env, TGW_BOOTSTRAP_TOKEN: TOKEN, TGW_DATA_KEY: "bench-data-key-0123456789" };
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (d) => {
      text += d;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(text);
      if (m) resolve(m[0]);
    });
    child.once("exit", (code) => reject(new Error(`tgw serve exited with ${code}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { url, stop };
}

async function requests(url: string): Promise<{ total: number; limited: number }> {
  const res = await fetch(`${url}/debug/requests`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const { requests } = (await res.json()) as { requests: { status: number }[] };
  await fetch(`${url}/debug/requests`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
  return { total: requests.length, limited: requests.filter((r) => r.status === 429).length };
}

const ms = (x: number) => `${Math.round(x).toLocaleString("en-US")} ms`;

function expectOk(r: Run, what: string, codes: number[] = [0]): void {
  if (r.code === null || !codes.includes(r.code)) {
    throw new Error(`${what} exited with ${r.code}:\n${r.out.slice(-2000)}`);
  }
}

/** The other build's bin given by `--vs`, if any. */
let other: string | undefined;
/** Round trip added by ./latency-proxy.ts for the `--rtt` section (ms); 0: none. */
let rtt = 0;

async function measure(n: number, runs: number, rateRuns: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tgw-bench-plan-"));
  try {
    const workload = await writeWorkload(dir, n);
    const total = workload.resources + workload.modules;
    process.stdout.write(
      `\n## ${total.toLocaleString("en-US")} objects (${workload.resources} resources of every kind, ${workload.modules} modules)\n`,
    );
    let server = await serve(dir, workload.fixtures);
    const env = {
      ...process.env,
      TGW_API_URL: server.url,
      TGW_API_KEY: TOKEN,
      TGW_CACHE_DIR: join(dir, "cache"),
      NO_COLOR: "1",
      CI: "",
    };
    const seed = await run([TGW, "apply", "-f", ".", "--auto-approve"], env, dir);
    expectOk(seed, "the seeding apply");
    process.stdout.write(`seeding apply (${total} creates): ${(seed.ms / 1000).toFixed(1)} s\n`);
    await requests(server.url);

    const times = {
      node: [] as number[],
      validate: [] as number[],
      plan: [] as number[],
      otherValidate: [] as number[],
      otherPlan: [] as number[],
    };
    let perPlan = 0;
    const rss: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const a = await run(["-e", "0"], env, dir);
      const v = await run([TGW, "validate", "-f", "."], env, dir);
      expectOk(v, "tgw validate");
      const p = await run([TGW, "plan", "-f", ".", "--detailed-exitcode"], env, dir, true);
      expectOk(p, "tgw plan --detailed-exitcode (a plan with changes after seeding?)");
      if (p.rssMb !== undefined) rss.push(p.rssMb);
      perPlan = (await requests(server.url)).total;
      const ov = other ? await run([other, "validate", "-f", "."], env, dir) : undefined;
      const op = other ? await run([other, "plan", "-f", ".", "--detailed-exitcode"], env, dir) : undefined;
      if (ov && op) {
        expectOk(ov, "the --vs build's validate");
        expectOk(op, "the --vs build's plan");
        await requests(server.url);
      }
      if (i === 0) continue; // warm-up: file system caches
      times.node.push(a.ms);
      times.validate.push(v.ms);
      times.plan.push(p.ms);
      if (ov && op) {
        times.otherValidate.push(ov.ms);
        times.otherPlan.push(op.ms);
      }
    }
    const goal = GOALS[n];
    const rows = [
      ["node -e 0", ms(median(times.node)), "1.00x", ""],
      [
        "tgw validate",
        ms(median(times.validate)),
        `${(median(times.validate) / median(times.node)).toFixed(2)}x`,
        "",
      ],
      [
        "tgw plan",
        ms(median(times.plan)),
        `${(median(times.plan) / median(times.node)).toFixed(2)}x`,
        goal ? `<= ${ms(goal)}: ${(median(times.plan) / goal).toFixed(2)}x of the goal` : "",
      ],
    ];
    if (other) {
      const vs = (a: number[], b: number[]) => `this build ${(median(a) / median(b)).toFixed(2)}x of it`;
      rows.push([
        "tgw validate, --vs build",
        ms(median(times.otherValidate)),
        "",
        vs(times.validate, times.otherValidate),
      ]);
      rows.push(["tgw plan, --vs build", ms(median(times.otherPlan)), "", vs(times.plan, times.otherPlan)]);
    }
    process.stdout.write(
      `\n| command (median of ${runs}, alternated) | wall | vs node -e 0 | goal |\n|---|---|---|---|\n`,
    );
    for (const r of rows) process.stdout.write(`| ${r.join(" | ")} |\n`);
    process.stdout.write(`requests per plan: ${perPlan} (lists of 100, plus one GET per module)\n`);
    const peak = rss.length > 0 ? Math.max(...rss) : undefined;
    if (peak !== undefined)
      process.stdout.write(
        `tgw plan peak resident memory: ${Math.round(peak)} MB (highest of ${rss.length})\n`,
      );
    planned.push({ n: total, ms: median(times.plan), rssMb: peak });

    if (rateRuns > 0) {
      await server.stop();
      // The same port: the state records its API's URL (docs/state.md), a new one would be refused.
      server = await serve(dir, workload.fixtures, "120/60s", new URL(server.url).port);
      // The limit the client keeps against a remote API; on loopback it keeps none unless told.
      const limitedEnv = { ...env, TGW_API_URL: server.url, TGW_RATE_LIMIT: "120/60s" };
      const each: string[] = [];
      const t = performance.now();
      for (let i = 0; i < rateRuns; i++) {
        const p = await run([TGW, "plan", "-f", ".", "--detailed-exitcode"], limitedEnv, dir);
        expectOk(p, "tgw plan at the rate limit");
        each.push((p.ms / 1000).toFixed(1));
      }
      const { total: sent, limited } = await requests(server.url);
      process.stdout.write(
        `\nat --rate-limit 120/60s, ${rateRuns} plans back to back on one key: ${sent} requests in ${((performance.now() - t) / 1000).toFixed(0)} s, ` +
          `429 answers: ${limited} (goal 0); each run: ${each.join(", ")} s\n`,
      );
    }
    if (rtt > 0) server = await overLatency(server, dir, workload.fixtures, env, runs);
    await server.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The goal of `tgw plan` of 10,000 objects over a link with 50 ms of round trip (issue 30). */
const RTT_GOAL_MS = 2_000;
/**
 * The same plan on loopback when that goal was set (issue 30's table): the goal allows the network
 * the rest, a share that does not depend on the machine's speed as the plan's own work does.
 */
const ISSUE_LOOPBACK_MS = 1_200;

/**
 * `tgw plan` through ./latency-proxy.ts (`--rtt`): the server restarts on the same port with the
 * proxy as its public URL (its links name the proxy), and plans run through it, alternating with
 * plans through the same proxy set to no delay, which gives the network's share of the plan in one
 * loop whatever the machine's speed.
 * @returns the restarted server
 */
async function overLatency(
  server: Awaited<ReturnType<typeof serve>>,
  dir: string,
  fixtures: string,
  env: NodeJS.ProcessEnv,
  runs: number,
): Promise<Awaited<ReturnType<typeof serve>>> {
  const port = new URL(server.url).port;
  await server.stop();
  const proxy = await startLatencyProxy(Number(port), rtt);
  const restarted = await serve(dir, fixtures, undefined, port, proxy.url);
  // The state records the API's URL; the proxy's is another one.
  const args = [TGW, "plan", "-f", ".", "--detailed-exitcode", "--allow-api-change"];
  const viaProxy = { ...env, TGW_API_URL: proxy.url };
  const times: number[] = [];
  const undelayed: number[] = [];
  const otherTimes: number[] = [];
  let perPlan = 0;
  for (let i = 0; i < runs + 1; i++) {
    proxy.setRtt(rtt);
    const p = await run(args, viaProxy, dir);
    expectOk(p, `tgw plan over ${rtt} ms of round trip`);
    perPlan = (await requests(restarted.url)).total;
    const o = other ? await run([other, ...args.slice(1)], viaProxy, dir) : undefined;
    if (o) expectOk(o, `the --vs build's plan over ${rtt} ms of round trip`);
    proxy.setRtt(0);
    const z = await run(args, viaProxy, dir);
    expectOk(z, "tgw plan through the proxy with no delay");
    await requests(restarted.url);
    if (i === 0) continue;
    times.push(p.ms);
    undelayed.push(z.ms);
    if (o) otherTimes.push(o.ms);
  }
  await proxy.close();
  const goal = rtt === 50 ? ` (goal at 10,000 objects <= ${ms(RTT_GOAL_MS)})` : "";
  const vs = other
    ? `; the --vs build ${ms(median(otherTimes))} (this build ${(median(times) / median(otherTimes)).toFixed(2)}x of it)`
    : "";
  const share = median(times) - median(undelayed);
  const shareGoal = rtt === 50 ? ` (the goal's share: <= ${ms(RTT_GOAL_MS - ISSUE_LOOPBACK_MS)})` : "";
  process.stdout.write(
    `\nover a link with ${rtt} ms of round trip (bench/latency-proxy.ts): tgw plan ${ms(median(times))}, median of ${runs}${goal}; ${perPlan} requests per plan${vs}\n` +
      `through the same proxy with no delay, alternated: ${ms(median(undelayed))}; the network's share: ${ms(share)}${shareGoal}\n`,
  );
  return restarted;
}

/**
 * `tgw --version` and `tgw validate -f examples/complete` against `node -e 0`, alternated; validate
 * both with its code cache (src/launch/launch.ts: every run but a command's first) and without it
 * (`TGW_CODE_CACHE=0`: the first run of a command after an install or upgrade).
 */
async function startup(runs: number): Promise<void> {
  const examples = fileURLToPath(new URL("../examples/complete", import.meta.url));
  const cacheDir = mkdtempSync(join(tmpdir(), "tgw-bench-cache-"));
  const env = { ...process.env, NO_COLOR: "1", TGW_CACHE_DIR: cacheDir };
  const cold = { ...env, TGW_CODE_CACHE: "0" };
  const times = {
    node: [] as number[],
    version: [] as number[],
    validate: [] as number[],
    cold: [] as number[],
    other: [] as number[],
  };
  for (let i = 0; i < runs * 2 + 1; i++) {
    const a = await run(["-e", "0"], env);
    const b = await run([TGW, "--version"], env);
    const c = await run([TGW, "validate", "-f", examples], env);
    const d = await run([TGW, "validate", "-f", examples], cold);
    expectOk(c, "tgw validate -f examples/complete");
    expectOk(d, "tgw validate -f examples/complete (no code cache)");
    const e = other ? await run([other, "validate", "-f", examples], env) : undefined;
    if (e) expectOk(e, "the --vs build's validate -f examples/complete");
    if (i === 0) continue;
    if (e) times.other.push(e.ms);
    times.node.push(a.ms);
    times.version.push(b.ms);
    times.validate.push(c.ms);
    times.cold.push(d.ms);
  }
  rmSync(cacheDir, { recursive: true, force: true });
  const base = median(times.node);
  const row = (name: string, xs: number[]) =>
    process.stdout.write(`| ${name} | ${ms(median(xs))} | ${(median(xs) / base).toFixed(2)}x |\n`);
  process.stdout.write(
    `\n## start-up (median of ${runs * 2}, alternated)\n\n| command | wall | vs node -e 0 (goal <= 2x) |\n|---|---|---|\n`,
  );
  row("node -e 0", times.node);
  row("tgw --version", times.version);
  row("tgw validate -f examples/complete", times.validate);
  row("tgw validate -f examples/complete, no code cache (a command's first run)", times.cold);
  if (other) row("the --vs build's tgw validate -f examples/complete", times.other);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string" },
      runs: { type: "string" },
      "rate-runs": { type: "string" },
      quick: { type: "boolean" },
      vs: { type: "string" },
      rtt: { type: "string" },
    },
  });
  rtt = Number(values.rtt ?? 0);
  if (!Number.isFinite(rtt) || rtt < 0) throw new Error(`--rtt ${values.rtt}: expected milliseconds`);
  other = values.vs === undefined ? undefined : resolve(values.vs);
  const sizes = (values.sizes ?? (values.quick ? "1000" : "1000,10000")).split(",").map(Number);
  const runs = Number(values.runs ?? (values.quick ? 3 : 5));
  const rateRuns = Number(values["rate-runs"] ?? (values.quick ? 0 : 8));
  for (const n of sizes) {
    if (!Number.isInteger(n) || n < 40 || n > 100_000) throw new Error(`size ${n}: expected 40..100000`);
  }
  process.stdout.write(
    `# tgw plan, whole process (${new Date().toISOString().slice(0, 10)}, Node ${process.version})\n`,
  );
  await startup(runs);
  for (const [i, n] of sizes.entries()) await measure(n, runs, i === 0 ? rateRuns : 0);
  compareSizes();
}

/** Each size's plan against the first size's: time ratio next to the object ratio, and peak memory. */
function compareSizes(): void {
  const [first, ...rest] = planned;
  if (!first) return;
  for (const p of rest) {
    const mem = p.rssMb === undefined ? "" : `, peak ${Math.round(p.rssMb)} MB (goal at 100,000: < 1,536 MB)`;
    process.stdout.write(
      `\ntgw plan of ${p.n.toLocaleString("en-US")} objects against ${first.n.toLocaleString("en-US")}: ${(p.ms / first.ms).toFixed(2)}x the time for ${(p.n / first.n).toFixed(1)}x the objects (goal at 100,000 against 10,000: <= 12x)${mem}\n`,
    );
  }
}

await main();
