/**
 * Benchmark of `tgw watch` during an API outage (issue 30 §3): the requests a watcher sends in the
 * first 8 s of an outage (goal <= 12, the client's own retries counted), and how soon it resumes
 * once the API is back (goal: within one back-off step).
 *
 *   npm run build && npx tsx bench/outage.ts [--runs 3] [--down-for 8] [--vs OTHER/bin/tgw.js]
 *
 * Per run: the reference server in this process, a TCP proxy in front of it that the script takes
 * down (every connection, open or new, is closed at once: test/watch/proxy.ts), and
 * `node bin/tgw.js watch --interval 2s --log-format json` with its default back-off, on a stack of 20
 * API keys. Once its start-up reconcile succeeded, the proxy goes down; the count starts at the first
 * connection the watcher makes while it is down, and the connections of the next `--down-for`
 * seconds are counted (each request meets a closed connection, so connections are requests). Then
 * the proxy comes back up, and the time to the next `reconcile_succeeded` is compared with the wait
 * of the last `retry_scheduled` (the back-off step the watcher was in).
 *
 * With `--vs`, runs alternate between this checkout's build and the other one, and the medians and
 * their ratio are printed side by side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startServer } from "../src/server/server.js";
import { startProxy } from "../test/watch/proxy.js";

const TOKEN = "bench-outage-token";
const THIS_BUILD = fileURLToPath(new URL("../bin/tgw.js", import.meta.url));

/** What one run measured. */
interface RunResult {
  requests: number;
  attempts: number;
  resumeMs: number;
  stepMs: number;
}

type LogEvent = Record<string, unknown> & { event: string };

function startWatcher(bin: string, dir: string, apiUrl: string): { child: ChildProcess; events: LogEvent[] } {
  const args = [bin, "watch", "-f", dir, "--interval", "2s", "--log-format", "json"];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: "1", TGW_API_URL: apiUrl, TGW_API_KEY: TOKEN },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const events: LogEvent[] = [];
  let partial = "";
  child.stdout?.on("data", (d: Buffer) => {
    const parts = (partial + d.toString()).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) if (line.startsWith("{")) events.push(JSON.parse(line) as LogEvent);
  });
  return { child, events };
}

async function until<T>(what: string, found: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One outage against the watcher of `bin`. */
async function run(bin: string, downForMs: number): Promise<RunResult> {
  const server = await startServer({ bootstrapToken: TOKEN, logger: false });
  const proxy = await startProxy(server.url);
  const dir = mkdtempSync(join(tmpdir(), "tgw-bench-outage-"));
  const keys = Array.from({ length: 20 }, (_, i) => `  k${i}:\n    description: key ${i}`);
  writeFileSync(join(dir, "main.yaml"), `stack: bench-outage\napi_keys:\n${keys.join("\n")}\n`);
  const { child, events } = startWatcher(bin, dir, proxy.url);
  try {
    await until("the start-up reconcile", () => events.find((e) => e.event === "reconcile_succeeded"));
    const base = proxy.connections();
    const from = events.length;
    proxy.down();
    await until("the first request during the outage", () => (proxy.connections() > base ? true : undefined));
    await new Promise((r) => setTimeout(r, downForMs));
    const requests = proxy.connections() - base;
    const during = events.slice(from);
    const attempts = during.filter((e) => e.event === "reconcile_failed").length;
    const stepMs = Number(during.filter((e) => e.event === "retry_scheduled").at(-1)?.inMs ?? Number.NaN);
    const upFrom = events.length;
    proxy.up();
    const upAt = performance.now();
    await until("the reconcile after the outage", () =>
      events.slice(upFrom).find((e) => e.event === "reconcile_succeeded"),
    );
    return { requests, attempts, resumeMs: performance.now() - upAt, stepMs };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await proxy.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      "down-for": { type: "string", default: "8" },
      vs: { type: "string" },
    },
  });
  const runs = Number(values.runs);
  const downForMs = Number(values["down-for"]) * 1000;
  const builds: [string, string][] = [["this build", THIS_BUILD]];
  if (values.vs) builds.push(["--vs", values.vs]);
  const results = new Map<string, RunResult[]>(builds.map(([name]) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, bin] of builds) {
      const r = await run(bin, downForMs);
      results.get(name)?.push(r);
      console.log(
        `${name} run ${i + 1}: ${r.requests} requests in the first ${downForMs / 1000} s of outage (${r.attempts} reconcile attempts); resumed ${Math.round(r.resumeMs)} ms after the API came back (back-off step ${r.stepMs} ms)`,
      );
    }
  }
  const summary = builds.map(([name]) => {
    const rs = results.get(name) ?? [];
    return {
      name,
      requests: median(rs.map((r) => r.requests)),
      resume: median(rs.map((r) => r.resumeMs / r.stepMs)),
    };
  });
  for (const s of summary) {
    console.log(
      `${s.name}: median ${s.requests} requests in ${downForMs / 1000} s (goal <= 12); resumed after ${s.resume.toFixed(2)} of a back-off step (goal <= 1)`,
    );
  }
  if (summary.length === 2) {
    console.log(
      `ratio of requests: ${((summary[0]?.requests ?? 0) / (summary[1]?.requests ?? 1)).toFixed(2)}x`,
    );
  }
}

await main();
