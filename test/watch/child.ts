/**
 * `tgw watch` as a service runs it: the real CLI in its own process (the bundle of the sources that
 * test/global-setup.ts makes: `node .test-build/tgw.cjs watch ...`), pointed at a test server through TGW_API_URL / TGW_API_KEY. The harness keeps every log
 * line, parses the JSON ones (`--log-format json`), and waits for lines or events with a deadline.
 * Also: a scratch configuration directory, and a small API caller for changes "behind the watcher's back".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_TGW } from "../helpers/test-tgw.js";

/** One parsed JSON log line. */
export type LogEvent = Record<string, unknown> & { event: string; msg: string; time: string };

/** A running `tgw watch`. */
export interface Watcher {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines(): string[];
  /** The JSON log events so far (empty with the human log). */
  events(): LogEvent[];
  /** Everything written to stderr. */
  stderr(): string;
  /** Waits for a stdout line matching `pattern` after line index `from`; returns it and its index. */
  waitForLine(
    pattern: RegExp,
    opts?: { from?: number; timeoutMs?: number },
  ): Promise<{ line: string; index: number }>;
  /** Waits for a JSON event matching `match` after event index `from`. */
  waitForEvent(
    match: (e: LogEvent) => boolean,
    opts?: { from?: number; timeoutMs?: number },
  ): Promise<{ event: LogEvent; index: number }>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process ends. */
  exit: Promise<number | null>;
}

/** Starts `tgw watch -f <dir> ...args` against `api`, in `cwd` (default: the config's parent directory). */
export function startWatch(opts: {
  dir: string;
  api: { url: string; token: string };
  args?: string[];
  cwd?: string;
  /** More environment variables (e.g. PGPASSWORD, TGW_STATE_URL). */
  env?: Record<string, string>;
}): Watcher {
  const child = spawn(
    process.execPath,
    [TEST_TGW, "watch", ...(opts.dir === "" ? [] : ["-f", opts.dir]), ...(opts.args ?? [])],
    {
      cwd: opts.cwd ?? join(opts.dir, ".."),
      env: {
        ...process.env,
        NO_COLOR: "1",
        TGW_API_URL: opts.api.url,
        TGW_API_KEY: opts.api.token,
        ...opts.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  const events: LogEvent[] = [];
  let partial = "";
  let err = "";
  child.stdout?.on("data", (d) => {
    partial += String(d);
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      if (line.startsWith("{")) events.push(JSON.parse(line) as LogEvent);
    }
  });
  child.stderr?.on("data", (d) => {
    err += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const until = async <T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`timed out waiting for ${what}; log:\n${lines.join("\n")}\nstderr:\n${err}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    child,
    lines: () => lines,
    events: () => events,
    stderr: () => err,
    exit,
    waitForLine: (pattern, o = {}) =>
      until(
        () => {
          const index = lines.findIndex((l, i) => i >= (o.from ?? 0) && pattern.test(l));
          return index < 0 ? undefined : { line: lines[index] as string, index };
        },
        o.timeoutMs ?? 10_000,
        String(pattern),
      ),
    waitForEvent: (match, o = {}) =>
      until(
        () => {
          const index = events.findIndex((e, i) => i >= (o.from ?? 0) && match(e));
          return index < 0 ? undefined : { event: events[index] as LogEvent, index };
        },
        o.timeoutMs ?? 10_000,
        "a log event",
      ),
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return exit;
    },
  };
}

/** A scratch directory `<tmp>/<prefix>XXXX/config` with files; `cleanup()` removes it all. */
export function scratchConfig(
  prefix: string,
  files: Record<string, string>,
): { root: string; dir: string; write(name: string, text: string): void; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(root, "config");
  const write = (name: string, text: string) => writeFileSync(join(root, name), text);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) write(name, text);
  return { root, dir, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Calls the API directly (as someone else would), returning status and parsed body. */
export async function callApi(
  api: { url: string; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(api.url + path, {
    method,
    headers: {
      authorization: `Bearer ${api.token}`,
      "service-version": "2",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The API keys of the account whose description is `description` (one page of 100 is enough here). */
export async function keysDescribed(api: { url: string; token: string }, description: string) {
  const { body } = await callApi(api, "GET", "/api_keys?limit=100");
  return ((body as { keys: { id: string; description: string; metadata: string }[] }).keys ?? []).filter(
    (k) => k.description === description,
  );
}
