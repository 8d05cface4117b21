/**
 * Benchmark of `tgw watch` (issue 13): the time from saving an edit of one resource to the change being
 * live in the API, at 10 and 10,000 managed resources, for the whole `tgw watch` process.
 *
 *   npx tsx bench/watch.ts [--sizes 10,10000] [--edits 7] [--debounce 50ms] [--node-flags "--max-old-space-size=1100"]
 *
 * Setup per size: the reference server in a child process (in memory, no fixtures, no logging), a
 * scratch configuration of N resources (tunnel group backends and API keys, alternating; 100 resources
 * per YAML file) and `tgw watch -f <dir> --interval 1h --log-format json --parallelism 16` as another
 * child process, started as a user starts it (`src/cli/main.ts` through tsx). Its startup reconcile
 * creates the N resources (timed and printed, not part of the figure).
 *
 * One edit: one YAML file is rewritten through an atomic rename (write a temporary file beside it,
 * then `rename` over it, as editors, `git` and ConfigMap updates do), changing the description of
 * one tunnel group backend. "Live" is the first moment a GET of that backend returns the new
 * description: this script polls it every 5 ms (one cheap GET on loopback, far below the server's
 * capacity; reading the request log instead would show when the PATCH arrived, not when it was done).
 * After each edit the script waits for the watcher's `reconcile_succeeded` log event and 300 ms more,
 * so that edits are never merged into one reconcile.
 *
 * Prints per size: median and p90 of the edit-to-live latencies next to the goal (<= 150 ms at 10,
 * <= 1 s at 10,000), and the median of the reconcile durations the watcher logged.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const TOKEN = "bench-watch-token";
const MAIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const PER_FILE = 100;
const POLL_MS = 5;
/** The goal per size (ms): <= 150 ms at 10 resources, <= 1 s at 10,000 (issue 13); 12x that at 100,000 (issue 30). */
const goal = (n: number) => (n <= 10 ? 150 : n <= 10_000 ? 1_000 : 12_000);
/** Node options of the watcher's process (`--node-flags`, space-separated): a heap cap, a profiler. */
let nodeFlags: string[] = [];

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

async function startServerChild(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ["--import", TSX, fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, stop: () => child.stdin.end() };
}

/** The YAML of file `f` (resources f*100 .. f*100+99 below n), backend `edited` described as `text`. */
function fileText(f: number, n: number, edited?: { i: number; text: string }): string {
  const backends: string[] = [];
  const keys: string[] = [];
  for (let i = f * PER_FILE; i < Math.min(n, (f + 1) * PER_FILE); i++) {
    const name = `r${String(i).padStart(5, "0")}`;
    if (i % 2 === 0) {
      const description = edited?.i === i ? edited.text : `backend ${i}`;
      backends.push(`  ${name}:\n    description: ${description}\n    labels: { n: "${i}" }`);
    } else {
      keys.push(`  ${name}:\n    description: key ${i}\n    metadata: { n: ${i} }`);
    }
  }
  const doc = f === 0 ? ["stack: bench"] : [];
  if (backends.length > 0) doc.push("tunnel_group_backends:", ...backends);
  if (keys.length > 0) doc.push("api_keys:", ...keys);
  return `${doc.join("\n")}\n`;
}

/** A JSON log line of the watcher. */
type LogEvent = { event: string; durationMs?: number; [k: string]: unknown };

interface WatchChild {
  child: ChildProcess;
  events: LogEvent[];
  waitFor(match: (e: LogEvent) => boolean, from: number, timeoutMs: number): Promise<LogEvent>;
}

function startWatch(dir: string, url: string, debounce: string | undefined): WatchChild {
  const args = [...nodeFlags, "--import", TSX, MAIN, "watch", "-f", dir, "--interval", "1h"];
  args.push("--log-format", "json", "--parallelism", "16", ...(debounce ? ["--debounce", debounce] : []));
  const child = spawn(process.execPath, args, {
    cwd: join(dir, ".."),
    env: { ...process.env, NO_COLOR: "1", TGW_API_URL: url, TGW_API_KEY: TOKEN },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const events: LogEvent[] = [];
  let partial = "";
  child.stdout?.on("data", (d) => {
    const parts = (partial + String(d)).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) if (line.startsWith("{")) events.push(JSON.parse(line) as LogEvent);
  });
  return {
    child,
    events,
    async waitFor(match, from, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.slice(from).find(match);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`tgw watch exited with ${child.exitCode}`);
        if (Date.now() > deadline) throw new Error("timed out waiting for the watcher's log");
        await sleep(10);
      }
    },
  };
}

async function api<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}`, "service-version": "2" },
  });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** The id of the backend described as `description` (listed page by page). */
async function backendId(url: string, description: string): Promise<string> {
  type Page = { backends: { id: string; description: string }[]; next_page_uri: string | null };
  let path: string | null = "/backends/tunnel_group?limit=100";
  while (path) {
    const page: Page = await api<Page>(url, path);
    const found = page.backends.find((b) => b.description === description);
    if (found) return found.id;
    path = page.next_page_uri
      ? new URL(page.next_page_uri).pathname + new URL(page.next_page_uri).search
      : null;
  }
  throw new Error(`no backend described ${description}`);
}

async function measure(n: number, edits: number, debounce: string | undefined): Promise<string[]> {
  const server = await startServerChild();
  const root = mkdtempSync(join(tmpdir(), "tgw-bench-watch-"));
  const dir = join(root, "config");
  mkdirSync(dir);
  const files = Math.ceil(n / PER_FILE);
  const path = (f: number) => join(dir, `part-${String(f).padStart(3, "0")}.yaml`);
  for (let f = 0; f < files; f++) writeFileSync(path(f), fileText(f, n));
  let watch: WatchChild | undefined;
  try {
    const t0 = performance.now();
    watch = startWatch(dir, server.url, debounce);
    await watch.waitFor((e) => e.event === "reconcile_succeeded", 0, 600_000);
    const startupMs = performance.now() - t0;
    // The edited backend: in the last file (the one a user is likeliest to append to).
    const f = files - 1;
    const i = Math.min(n - 1, f * PER_FILE) - (Math.min(n - 1, f * PER_FILE) % 2);
    const id = await backendId(server.url, `backend ${i}`);
    const latencies: number[] = [];
    const reconciles: number[] = [];
    for (let k = 1; k <= edits; k++) {
      const text = `edited ${k} ${Date.now()}`;
      const from = watch.events.length;
      const tmp = join(dir, `.part.tmp`);
      writeFileSync(tmp, fileText(f, n, { i, text }));
      const start = performance.now();
      renameSync(tmp, path(f));
      for (;;) {
        const b = await api<{ description: string }>(server.url, `/backends/tunnel_group/${id}`);
        if (b.description === text) break;
        if (performance.now() - start > 60_000) throw new Error("the edit did not go live within 60 s");
        await sleep(POLL_MS);
      }
      latencies.push(performance.now() - start);
      const done = await watch.waitFor((e) => e.event === "reconcile_succeeded", from, 60_000);
      reconciles.push(done.durationMs ?? Number.NaN);
      await sleep(300);
    }
    return [
      String(n),
      `${(startupMs / 1000).toFixed(1)}s`,
      String(edits),
      `${Math.round(quantile(latencies, 0.5))}ms`,
      `${Math.round(quantile(latencies, 0.9))}ms`,
      `<= ${goal(n)}ms`,
      `${Math.round(quantile(reconciles, 0.5))}ms`,
      peakRss(watch.child.pid),
      latencies.map((l) => Math.round(l)).join(" "),
    ];
  } finally {
    watch?.child.kill("SIGTERM");
    if (watch && watch.child.exitCode === null) await new Promise((r) => watch?.child.once("exit", r));
    server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The peak resident memory of a running process, from Linux's /proc (VmHWM): `123MB`, or `?`. */
function peakRss(pid: number | undefined): string {
  try {
    const kb = /VmHWM:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? "?" : `${Math.round(Number(kb) / 1024)}MB`;
  } catch {
    return "?";
  }
}

/** The q-quantile (0..1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: "boolean" },
      sizes: { type: "string" },
      edits: { type: "string" },
      debounce: { type: "string" },
      "node-flags": { type: "string" },
    },
  });
  nodeFlags = values["node-flags"]?.split(" ").filter((f) => f !== "") ?? [];
  if (values.serve) return serve();
  const sizes = (values.sizes ?? "10,10000").split(",").map((s) => Number(s.trim()));
  for (const n of sizes) {
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error(`size ${n}: expected 1..100000`);
  }
  const edits = Number(values.edits ?? "7");
  if (!Number.isInteger(edits) || edits < 1) throw new Error(`--edits ${values.edits}: expected a count`);
  const header = [
    "resources",
    "startup",
    "edits",
    "median",
    "p90",
    "goal",
    "reconcile (log)",
    "peak RSS",
    "each (ms)",
  ];
  const rows: string[][] = [];
  for (const n of sizes) {
    process.stderr.write(`measuring ${n} resources...\n`);
    rows.push(await measure(n, edits, values.debounce));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  process.stdout.write(`${line(header)}\n${rows.map(line).join("\n")}\n`);
  process.stdout.write(
    "median / p90 = edit-to-live: from the rename of the edited file to the first GET returning the new description.\n" +
      "startup = the startup reconcile creating every resource; reconcile (log) = median duration the watcher logged per edit;\n" +
      "peak RSS = the watcher's peak resident memory after the edits (Linux /proc VmHWM).\n",
  );
}

await main();
