/**
 * The CLI bundle (scripts/bundle.ts) and its launcher with a V8 code cache (src/launch/launch.ts), what
 * `bin/tgw.js` runs: built afresh into a folder of its own (two levels below the root, as dist/tgw/
 * is), then run as a user runs it. The other CLI tests run the sources through tsx, which cannot show
 * what only bundling breaks: a package loaded twice (Ajv's code builders from one copy, its compiler
 * from another), a module that finds its files from its own path, a CommonJS package reached through
 * a dynamic import, `import.meta` in a CommonJS script.
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli } from "../../scripts/bundle.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { copyExamples, type Run, tgw } from "./tgw.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let outdir: string;
let cacheDir: string;
let server: TestServer;
let dir: string;

beforeAll(async () => {
  outdir = await mkdtemp(join(ROOT, "dist", "bundle-test-"));
  await bundleCli(outdir);
  // bin/tgw.js, with the launcher and the bundle just built.
  const bundle = join(outdir, "tgw.cjs");
  await writeFile(
    join(outdir, "bin.cjs"),
    `require(${JSON.stringify(join(outdir, "launch.cjs"))}).launch(${JSON.stringify(bundle)}, process.argv.slice(2));\n`,
  );
  cacheDir = await mkdtemp(join(tmpdir(), "tgw-code-cache-"));
  server = await startTestServer();
  dir = await copyExamples();
});
afterAll(async () => {
  await server?.close();
  await rm(outdir, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

/** Runs the bundle through the launcher with `args` in the copy of the examples. */
function bundled(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return tgw(args, { cwd: dir, script: join(outdir, "bin.cjs"), env: { TGW_CACHE_DIR: cacheDir, ...env } });
}

const api = () => ({ TGW_API_URL: server.url, TGW_API_KEY: server.token });

describe("the CLI bundle", () => {
  it("is two levels below the package root, where the code looks for package.json", () => {
    expect(relative(ROOT, outdir).split(/[\\/]/)).toHaveLength(2);
  });

  it("prints the package's version", async () => {
    const run = await bundled(["--version"]);
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it("validates the complete example (YAML anchors: the yaml package through a dynamic import)", async () => {
    const run = await bundled(["validate", "-f", "examples/complete"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("valid: 13 resources, 9 modules in 4 files");
  });

  it("is ASCII, with the licences of the bundled packages beside it", async () => {
    const bytes = await readFile(join(outdir, "tgw.cjs"));
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
    expect(await readFile(join(outdir, "tgw.cjs.LEGAL.txt"), "utf8")).toContain("MIT");
  });

  it("keeps a code cache per command: made by a first run, used by the next, remade when refused", async () => {
    const validate = ["validate", "-f", "examples/complete", "--debug"];
    const first = await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") });
    expect(first.stderr).toMatch(/^tgw: code cache none \(/);
    const files = await readdir(join(cacheDir, "a", "code-cache"));
    expect(files).toEqual([expect.stringMatching(/^validate-[0-9a-f]{16}-[0-9a-f]{16}\.bin$/)]);
    const file = join(cacheDir, "a", "code-cache", files[0] as string);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") });
    expect(second.stderr).toMatch(/^tgw: code cache used \(/);
    expect(second.stdout).toBe(first.stdout);

    await writeFile(file, "not a code cache");
    const damaged = await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") });
    expect(damaged.stderr).toMatch(/^tgw: code cache refused \(/);
    expect(damaged.stdout).toBe(first.stdout);
    expect((await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") })).stderr).toMatch(
      /code cache used/,
    );

    // Another install of tgw (a project of its own) keeps its cache beside this one's.
    const other = await mkdtemp(join(ROOT, "dist", "bundle-test-"));
    try {
      await cp(outdir, other, { recursive: true });
      const launcher = (await readFile(join(outdir, "bin.cjs"), "utf8")).replaceAll(outdir, other);
      await writeFile(join(other, "bin.cjs"), launcher);
      const elsewhere = await tgw(validate, {
        cwd: dir,
        script: join(other, "bin.cjs"),
        env: { TGW_CACHE_DIR: join(cacheDir, "a") },
      });
      expect(elsewhere.stderr).toMatch(/^tgw: code cache none \(/);
      expect(await readdir(join(cacheDir, "a", "code-cache"))).toHaveLength(2);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    // A new build of this install replaces its cache.
    await utimes(join(outdir, "tgw.cjs"), new Date(), new Date(Date.now() + 5_000));
    expect((await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") })).stderr).toMatch(
      /code cache none/,
    );
    const after = await readdir(join(cacheDir, "a", "code-cache"));
    expect(after).toHaveLength(2);
    expect(after).not.toContain(files[0]);

    // A cache in use is marked as such once a day; one unused for 30 days (an install since removed)
    // goes at the next write.
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    const install = (name: string | undefined) => name?.split("-")[1];
    const ours = after.find((f) => install(f) === install(files[0]));
    const current = join(cacheDir, "a", "code-cache", ours ?? "missing");
    const [gone, kept] = ["validate-00000000000000aa-00.bin", "plan-00000000000000bb-00.bin"];
    for (const [name, age] of [
      [gone, 31],
      [kept, 29],
    ] as const) {
      await writeFile(join(cacheDir, "a", "code-cache", name), "x");
      await utimes(join(cacheDir, "a", "code-cache", name), days(age), days(age));
    }
    await utimes(current, days(40), days(40));
    expect((await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") })).stderr).toMatch(/cache used/);
    expect((await stat(current)).mtimeMs).toBeGreaterThan(days(1).getTime());
    await writeFile(current, "refused, so written again");
    await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "a") });
    const pruned = await readdir(join(cacheDir, "a", "code-cache"));
    expect(pruned).toContain(kept);
    expect(pruned).not.toContain(gone);
    expect(pruned).toContain(ours);

    const off = await bundled(validate, { TGW_CACHE_DIR: join(cacheDir, "b"), TGW_CODE_CACHE: "0" });
    expect(off.stderr).toMatch(/^tgw: code cache off/);
    expect(off.stdout).toBe(first.stdout);
    await expect(stat(join(cacheDir, "b"))).rejects.toThrow();
  });

  it("places a configuration problem at its file, line and field", async () => {
    await mkdir(join(dir, "bad"));
    await writeFile(join(dir, "bad", "tgw.yaml"), "stack: bad\napi_keys:\n  ci:\n    descripton: typo\n");
    const run = await bundled(["validate", "-f", "bad"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("bad/tgw.yaml:4:5: api_keys.ci");
  });

  it("shows --debug stack traces at the sources' lines, not the bundle's", async () => {
    const run = await bundled(["validate", "-f", "no-such-dir", "--debug"]);
    expect(run.code).toBe(1);
    const load = await readFile(join(ROOT, "src", "config", "load.ts"), "utf8");
    const at = /\n {4}at loadConfig \(src\/config\/load\.ts:(\d+):\d+\)\n/.exec(run.stderr);
    expect(load.split("\n")[Number(at?.[1]) - 1]).toContain("throw new ConfigError");
    expect(run.stderr).not.toContain("tgw.cjs:");
    expect((await bundled(["validate", "-f", "no-such-dir"])).stderr).not.toMatch(/\n\s+at /);
  });

  it("applies the complete example, then plans no changes", async () => {
    const applied = await bundled(["apply", "-f", "examples/complete", "--auto-approve"], api());
    expect(applied.stderr).not.toMatch(/error/i);
    expect(applied.stdout).toContain("Apply complete: 22 created");
    const planned = await bundled(["plan", "-f", "examples/complete", "--detailed-exitcode"], api());
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain("No changes.");
  });

  it("runs the embedded reference server, which compiles the API's schemas with Ajv", async () => {
    // A stack of its own: the one above records the test server as its API.
    const run = await bundled(["plan", "-f", "examples/complete", "--state", join(dir, "embedded.json")]);
    expect(run.stderr).toContain("Using the embedded reference server");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Plan: 22 to create");
  });

  it("loads the reference server as a part of its own, whose errors stay deliberate errors", async () => {
    const files = await readdir(outdir);
    expect(files).toEqual(expect.arrayContaining(["tgw.cjs", "server.cjs"]));
    expect(await readFile(join(outdir, "tgw.cjs"), "latin1")).not.toContain("fastify");
    await writeFile(join(dir, "bad-fixtures.yaml"), "edges: [\n");
    const run = await bundled(["serve", "--port", "0", "--fixtures", "bad-fixtures.yaml"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error \[fixtures\]: bad-fixtures\.yaml/);
    expect(run.stderr).not.toContain("Internal error");
  });

  it("installs the Terraform provider bundled beside it, with a launcher that names no path", async () => {
    const mirror = join(dir, "mirror");
    const run = await bundled(["terraform", "install", "--dir", mirror]);
    expect(run.code).toBe(0);
    const wrapper = run.stdout.match(/(\S*terraform-provider-tunnelgw_v\S+)/)?.[1];
    expect(wrapper, run.stdout).toBeDefined();
    const text = await readFile(wrapper as string, "utf8");
    expect(text).toBe('#!/bin/sh\nexec node "$(dirname "$0")/launch.cjs" "$@"\n');
    const installed = await readFile(join(wrapper as string, "..", "provider.cjs"));
    expect(installed.equals(await readFile(join(outdir, "provider", "provider.cjs")))).toBe(true);
    // Its transport is ours (issue 44): none of the libraries it started with is bundled.
    for (const library of ["@grpc/grpc-js", "@grpc/proto-loader", "@peculiar/x509", "proto-loader"])
      expect(installed.includes(library), library).toBe(false);
    // Run by hand, even with --version, it says what it is: no stack trace from the CLI's launcher.
    const byHand = spawnSync(wrapper as string, ["--version"], { encoding: "utf8" });
    expect(byHand.status).toBe(1);
    expect(byHand.stderr).toMatch(
      /^terraform-provider-tunnelgw is a Terraform provider: Terraform starts it/,
    );
  });
});
