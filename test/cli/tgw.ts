/**
 * Runs the real `tgw` CLI in its own process (the bundle of the sources test/global-setup.ts makes, as
 * `bin/tgw.js` runs it), as a user or CI runs it, against a test server (`TGW_API_URL`), or the embedded default when no URL is given.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { copyExamples as copyTree } from "../helpers/examples.js";
import { TEST_TGW } from "../helpers/test-tgw.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** The outcome of a run. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Where and against what to run. */
export interface RunOptions {
  cwd: string;
  /** `{url, token}` of a test server; omitted: the embedded default (no TGW_API_URL). */
  server?: { url: string; token: string };
  env?: Record<string, string>;
  /** Written to stdin, then closed (default: stdin closed at once, so it is not a terminal). */
  input?: string;
  /** The script node runs (with tsx) instead of src/cli/main.ts: a launcher of a built bundle. */
  script?: string;
}

function environment(opts: RunOptions): NodeJS.ProcessEnv {
  const { TGW_API_URL: _url, TGW_API_KEY: _key, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited, NO_COLOR: "1", ...opts.env };
  if (opts.server) {
    env.TGW_API_URL = opts.server.url;
    env.TGW_API_KEY = opts.server.token;
  }
  return env;
}

/** Starts `tgw args...`; the caller reads its output and may kill it. */
export function spawnTgw(args: string[], opts: RunOptions): ChildProcess {
  const argv = opts.script ? ["--import", TSX, opts.script] : [TEST_TGW];
  const child = spawn(process.execPath, [...argv, ...args], {
    cwd: opts.cwd,
    env: environment(opts),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin?.end(opts.input ?? "");
  return child;
}

/** Runs `tgw args...` to the end. */
export function tgw(args: string[], opts: RunOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnTgw(args, opts);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * A temporary directory holding a copy of `examples/` (so `.tgw/` state is written there, not in the
 * repo), without what a user's run left in the working tree.
 */
export async function copyExamples(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tgw-cli-"));
  await copyTree(join(dir, "examples"));
  // The copy stands for a clone: `${file:../keys/...}` reads within its Git work tree (docs/configuration.md).
  await mkdir(join(dir, ".git"));
  return dir;
}

/** A temporary directory with `tgw.yaml` holding `n` tunnel group backends (stack `many`). */
export async function manyBackends(n: number, stack = "many"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tgw-many-"));
  const lines = [`stack: ${stack}`, "tunnel_group_backends:"];
  for (let i = 0; i < n; i++)
    lines.push(`  b${String(i).padStart(3, "0")}:`, `    description: backend ${i}`);
  await writeFile(join(dir, "tgw.yaml"), `${lines.join("\n")}\n`);
  return dir;
}
