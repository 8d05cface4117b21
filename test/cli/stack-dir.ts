/**
 * The set-up the CLI journey tests share: a fresh reference server per test file, a temporary
 * configuration directory per test (or per file), `tgw` run in it against that server (`CI=true`,
 * stdin closed), and the API called directly as the test's admin.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Run, tgw } from "./tgw.js";

/** What a test file gets from `useStackDir`; `server` and `dir` are set once the hooks ran. */
export interface StackDir {
  server: TestServer;
  dir: string;
  /** `tgw ...args -f .` in `dir`. */
  run(...args: string[]): Promise<Run>;
  /** Writes `tgw.yaml` in `dir`. */
  configure(yaml: string): Promise<void>;
  /** The state file's records by address. */
  records(): Promise<Record<string, { id: string; fingerprint: string }>>;
  /** Sends `method path [body]` to the API as the test's admin: status and JSON body (`{}` if none). */
  api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

/**
 * Registers the hooks (a server per file; a directory per test, or per file with `per: "file"`) and
 * returns the handles.
 */
export function useStackDir(prefix: string, opts: { per?: "test" | "file" } = {}): StackDir {
  const ctx = {} as StackDir;
  const perFile = opts.per === "file";
  beforeAll(async () => {
    ctx.server = await startTestServer();
    if (perFile) ctx.dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await ctx.server.close();
    if (perFile) await rm(ctx.dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    if (perFile) return;
    ctx.dir = await mkdtemp(join(tmpdir(), prefix));
    return () => rm(ctx.dir, { recursive: true, force: true });
  });
  const headers = (json = false): Record<string, string> => ({
    authorization: `Bearer ${ctx.server.token}`,
    "service-version": "2",
    ...(json ? { "content-type": "application/json" } : {}),
  });
  ctx.run = (...args) =>
    tgw([...args, "-f", "."], {
      cwd: ctx.dir,
      server: { url: ctx.server.url, token: ctx.server.token },
      env: { CI: "true" },
    });
  ctx.configure = (yaml) => writeFile(join(ctx.dir, "tgw.yaml"), yaml);
  ctx.records = async () =>
    (JSON.parse(await readFile(join(ctx.dir, ".tgw", "state.json"), "utf8")) as { resources: never })
      .resources;
  ctx.api = async (method, path, body) => {
    const res = await fetch(`${ctx.server.url}${path}`, {
      method,
      headers: headers(body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };
  return ctx;
}
