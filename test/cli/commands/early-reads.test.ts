/**
 * Reads sent early (docs/plan.md > Reads sent early), through the CLI against the reference server:
 * a plan remembers its refresh's reads (paths only, mode 0600), the next plan sends them while its
 * configuration loads and shows exactly what a plan without them shows, whatever changed meanwhile
 * (drift, a deleted object, a new one, a configuration edit); an apply forgets them; a configuration
 * error still comes first and alone.
 */
import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";
import { tgw } from "../tgw.js";

const ctx = useStackDir("tgw-early-", { per: "file" });
let cache: string;

/** `tgw ...args -f .` with the cache directory `dir` (default: this file's). */
const run = (args: string[], dir = cache) =>
  tgw([...args, "-f", "."], {
    cwd: ctx.dir,
    server: { url: ctx.server.url, token: ctx.server.token },
    env: { CI: "true", TGW_CACHE_DIR: dir },
  });

/** The requests the server saw since the last call, as `METHOD /path` (no query), then forgets them. */
async function takeRequests(): Promise<string[]> {
  // The server logs a request once its response is sent: a moment after the client has it.
  await new Promise((r) => setTimeout(r, 50));
  const seen = ctx.server.requests.map((r) => `${r.method} ${r.path}`);
  ctx.server.resetRequests();
  return seen;
}

/** The reads files in the cache directory `dir`. */
const readsFiles = async (dir = cache) =>
  (await readdir(join(dir, "reads")).catch(() => [] as string[])).map((f) => join(dir, "reads", f));

const config = (backends: string[], keys: string[]) =>
  [
    "stack: early",
    "tunnel_group_backends:",
    ...backends.map((b) => `  ${b}: {description: ${b}, labels: {app: ${b}}}`),
    "api_keys:",
    ...keys.map((k) => `  ${k}: {description: ${k}}`),
    "",
  ].join("\n");

/** A plan with the reads remembered against one with none (a fresh cache): the same output. */
async function planBoth(): Promise<{ early: string[]; plain: string[] }> {
  await takeRequests();
  const early = await run(["plan"]);
  const earlyRequests = await takeRequests();
  const plain = await run(["plan"], await mkdtemp(join(tmpdir(), "tgw-early-cache-")));
  const plainRequests = await takeRequests();
  expect(early.code, early.stderr).toBe(0);
  expect(plain.code, plain.stderr).toBe(0);
  expect(early.stdout).toBe(plain.stdout);
  expect(early.stderr).toBe(plain.stderr);
  return { early: earlyRequests, plain: plainRequests };
}

beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), "tgw-early-cache-"));
  await ctx.configure(config(["a", "b", "c", "d"], ["k1", "k2"]));
  expect((await run(["apply", "--auto-approve"])).code).toBe(0);
});

it("remembers a plan's reads, paths only, readable by the user alone", async () => {
  expect(await readsFiles()).toEqual([]);
  const plan = await run(["plan", "--detailed-exitcode"]);
  expect(plan.code, plan.stderr).toBe(0);
  const [file] = await readsFiles();
  expect(file).toBeDefined();
  expect((await stat(file as string)).mode & 0o777).toBe(0o600);
  const reads = JSON.parse(await readFile(file as string, "utf8")) as string[];
  expect(reads.length).toBeGreaterThan(0);
  for (const read of reads) expect(read).toMatch(/^\/[a-z_/]+(\/[A-Za-z0-9_]+)?(\?[a-z_=&A-Za-z0-9]+)?$/);
  const token = (await readFile(join(ctx.dir, ".tgw", "secrets", "k1.token"), "utf8")).trim();
  expect(await readFile(file as string, "utf8")).not.toContain(token);
});

it("sends each remembered read once, and plans what a plan without them plans, whatever changed", async () => {
  // Nothing changed: the same reads, none twice.
  const same = await planBoth();
  expect([...same.early].sort()).toEqual([...same.plain].sort());
  expect(new Set(same.early).size).toBe(same.early.length);

  // Drift, a deleted object, a new object no stack manages, and a configuration edit.
  const records = await ctx.records();
  const a = records["tunnel_group_backends.a"]?.id as string;
  const b = records["tunnel_group_backends.b"]?.id as string;
  expect(
    (await ctx.api("PATCH", `/backends/tunnel_group/${a}`, { description: "changed by hand" })).status,
  ).toBe(200);
  expect((await ctx.api("DELETE", `/backends/tunnel_group/${b}`)).status).toBe(204);
  expect((await ctx.api("POST", "/backends/tunnel_group", { description: "not ours" })).status).toBe(201);
  await ctx.configure(config(["a", "b", "c", "e"], ["k1"]));
  const changed = await planBoth();
  expect(new Set(changed.early).size).toBe(changed.early.length);
  const early = await run(["plan"]);
  expect(early.stdout).toMatch(/~ tunnel_group_backends\.a/);
  expect(early.stdout).toMatch(/\+ tunnel_group_backends\.b/);
  expect(early.stdout).toMatch(/- tunnel_group_backends\.d/);
  expect(early.stdout).toMatch(/\+ tunnel_group_backends\.e/);
  expect(early.stdout).toMatch(/- api_keys\.k2/);
});

it("sends the remembered reads before the refresh asks, even one it never asks for", async () => {
  const [file] = await readsFiles();
  const reads = JSON.parse(await readFile(file as string, "utf8")) as string[];
  await writeFile(file as string, JSON.stringify(["/reserved_domains?limit=7", ...reads]));
  await takeRequests();
  expect((await run(["plan"])).code).toBe(0);
  const seen = await takeRequests();
  expect(seen).toContain("GET /reserved_domains");
  // Remembered again as the refresh read: without the read it never asked for.
  expect(JSON.parse(await readFile(file as string, "utf8"))).not.toContain("/reserved_domains?limit=7");
});

it("forgets the reads after an apply, and the plan after it reads on its own", async () => {
  expect(await readsFiles()).toHaveLength(1);
  expect((await run(["apply", "--auto-approve"])).code).toBe(0);
  expect(await readsFiles()).toEqual([]);
  const plan = await run(["plan", "--detailed-exitcode"]);
  expect(plan.code, plan.stderr).toBe(0);
  expect(await readsFiles()).toHaveLength(1);
});

it("reports a configuration error alone, before saying which API it would use", async () => {
  const good = await readFile(join(ctx.dir, "tgw.yaml"), "utf8");
  await writeFile(join(ctx.dir, "tgw.yaml"), `${good}  k9: {descriptio: typo}\n`);
  const plan = await run(["plan"]);
  await writeFile(join(ctx.dir, "tgw.yaml"), good);
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/descriptio/);
  expect(plan.stderr).not.toMatch(/Using the API/);
});
