/**
 * The two packages as a user gets them (issue 29 §1): `npm pack` of the CLI (`tunnelgw`, the root, bin
 * `tgw`) and of the CDKTF constructs (`@tunnelgw/cdktf`, packages/cdktf), each tarball then installed
 * into an empty directory as `npm install ./<tarball>` does. The tarballs hold no state, secret or test
 * data; the installed `tgw` runs; the constructs' package brings its peers `cdktf` and `constructs` and
 * nothing of the CLI (no Fastify, SQLite, PostgreSQL client or Ajv), and an app imports, requires and
 * type-checks its classes.
 *
 * npm packs what the last build made (`npm ci` builds it; `npm run build` after changing the sources),
 * without the packages' `prepare` / `prepack` (scripts/prepare.mjs), which would rebuild dist/tgw under
 * the tests that run beside this one when the sources changed. The installs take the registry's
 * packages from npm's cache (--prefer-offline: the cache holds what package-lock.json names) and run
 * no install scripts: better-sqlite3's native build is for the reference server, which no command
 * here starts.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ROOT_PKG = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** The flags of every install: the cache first, no audit or funding requests, no install scripts. */
const INSTALL = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];

let dir: string;
let cli: { tarball: string; app: string };
let constructs: { tarball: string; app: string };

/** The environment of a child: without the `npm_*` variables an `npm test` run sets for its script. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const entries = Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name));
  return { ...Object.fromEntries(entries), NO_COLOR: "1", TGW_CACHE_DIR: join(dir, "cache"), ...extra };
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args...` in `cwd` to the end; a non-zero exit is a result, not an error. */
async function run(
  file: string,
  args: string[],
  cwd: string,
  extra?: Record<string, string>,
): Promise<Result> {
  try {
    const out = await promisify(execFile)(file, args, { cwd, env: env(extra), maxBuffer: 64 << 20 });
    return { code: 0, ...out };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** `npm pack` of the package in `cwd` (npm `extra` flags), into a folder of its own: the tarball's path. */
async function pack(name: string, cwd: string, extra: string[]): Promise<string> {
  const into = join(dir, `pack-${name}`);
  await mkdir(into);
  const packed = await run("npm", ["pack", "--ignore-scripts", ...extra, "--pack-destination", into], cwd);
  expect(packed.code, packed.stderr).toBe(0);
  const tarballs = (await readdir(into)).filter((f) => f.endsWith(".tgz"));
  expect(tarballs).toHaveLength(1);
  return join(into, tarballs[0] as string);
}

/** An empty project with the tarball installed: its folder. */
async function install(name: string, tarball: string): Promise<string> {
  const app = join(dir, `app-${name}`);
  await mkdir(app);
  await writeFile(join(app, "package.json"), `${JSON.stringify({ name: `app-${name}`, private: true })}\n`);
  const installed = await run("npm", [...INSTALL, tarball], app);
  expect(installed.code, installed.stderr).toBe(0);
  return app;
}

/** The paths in a tarball, without npm's `package/` prefix. */
async function entries(tarball: string): Promise<string[]> {
  const { stdout } = await run("tar", ["-tzf", tarball], dir);
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ""));
}

/** The names of every package installed in `app` (`npm ls --all`), each once. */
async function installedNames(app: string): Promise<string[]> {
  const listed = await run("npm", ["ls", "--all", "--parseable"], app);
  expect(listed.code, listed.stderr).toBe(0);
  const names = listed.stdout
    .split("\n")
    .filter((line) => line.includes("node_modules"))
    .map((line) => line.slice(line.lastIndexOf("node_modules/") + "node_modules/".length));
  return [...new Set(names)];
}

beforeAll(async () => {
  for (const built of ["dist/tgw/tgw.cjs", "packages/cdktf/dist/index.js"])
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  dir = await mkdtemp(join(tmpdir(), "tgw-packages-"));
  const [cliTarball, constructsTarball] = await Promise.all([
    pack("cli", ROOT, []),
    pack("cdktf", ROOT, ["--workspace", "@tunnelgw/cdktf"]),
  ]);
  const [cliApp, constructsApp] = await Promise.all([
    install("cli", cliTarball),
    install("cdktf", constructsTarball),
  ]);
  cli = { tarball: cliTarball, app: cliApp };
  constructs = { tarball: constructsTarball, app: constructsApp };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("tunnelgw (the CLI)", () => {
  it("packs the CLI's bundle, schemas and examples, and no state, secret, test or source", async () => {
    const files = await entries(cli.tarball);
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "bin/tgw.js",
        "dist/tgw/tgw.cjs",
        "dist/tgw/launch.cjs",
        "dist/tgw/server.cjs",
        "dist/tgw/provider/provider.cjs",
        "schemas/config.schema.json",
        "examples/fixtures.yaml",
        "examples/complete/main.yaml",
        "src/terraform/provider-schema.gen.json",
      ]),
    );
    const unwanted = /(^|\/)\.tgw\/|\.tfstate|cdktf\.out\/|\.terraform|node_modules\/|\.sqlite|\.token$/;
    expect(files.filter((f) => unwanted.test(f))).toEqual([]);
    expect(files.filter((f) => /^(test|bench|scripts|packages|dist\/cdktf)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith("src/") && !f.startsWith("src/terraform/"))).toEqual([]);
  });

  it("installs a tgw that prints its version", async () => {
    const tgw = await run(join(cli.app, "node_modules", ".bin", "tgw"), ["--version"], cli.app);
    expect(tgw.stderr).toBe("");
    expect(tgw.stdout.trim()).toBe(ROOT_PKG.version);
    expect(tgw.code).toBe(0);
  });

  it("validates a configuration, and the complete example it ships", async () => {
    const tgw = join(cli.app, "node_modules", ".bin", "tgw");
    await mkdir(join(cli.app, "infra"));
    const yaml = "stack: demo\ntunnel_group_backends:\n  web:\n    labels: { app: web }\n";
    await writeFile(join(cli.app, "infra", "main.yaml"), yaml);
    const valid = await run(tgw, ["validate", "-f", "infra"], cli.app);
    expect(valid.stdout).toContain("valid: 1 resource");
    expect(valid.code).toBe(0);

    await writeFile(join(cli.app, "infra", "main.yaml"), yaml.replace("labels", "labelz"));
    const invalid = await run(tgw, ["validate", "-f", "infra"], cli.app);
    expect(invalid.stderr).toContain("infra/main.yaml:4:5: tunnel_group_backends.web.labelz: unknown field");
    expect(invalid.code).toBe(1);

    const examples = join(cli.app, "node_modules", "tunnelgw", "examples");
    const complete = await run(tgw, ["validate", "-f", join(examples, "complete")], cli.app, {
      TGW_FILE_ROOTS: join(examples, "keys"),
    });
    expect(complete.stderr).toBe("");
    expect(complete.code).toBe(0);
  });
});

describe("@tunnelgw/cdktf (the constructs)", () => {
  it("has the CLI's version, the provider version its constructs are generated for", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "packages", "cdktf", "package.json"), "utf8"));
    expect(pkg.version).toBe(ROOT_PKG.version);
  });

  it("packs the bundle and its declarations only", async () => {
    const files = await entries(constructs.tarball);
    expect(files.filter((f) => !/^dist\/.*\.d\.ts$/.test(f)).sort()).toEqual([
      "README.md",
      "dist/index.js",
      "package.json",
    ]);
    expect(files).toContain("dist/index.d.ts");
  });

  it("installs cdktf and constructs, and nothing of the CLI", async () => {
    const names = await installedNames(constructs.app);
    expect(names).toEqual(expect.arrayContaining(["@tunnelgw/cdktf", "cdktf", "constructs"]));
    const cliOnly = [...Object.keys(ROOT_PKG.dependencies), "tunnelgw"];
    expect(names.filter((name) => cliOnly.includes(name))).toEqual([]);
    const pkg = JSON.parse(
      await readFile(join(constructs.app, "node_modules", "@tunnelgw", "cdktf", "package.json"), "utf8"),
    ) as Record<string, Record<string, string> | undefined>;
    expect(pkg.dependencies).toBeUndefined();
    expect(Object.keys(pkg.peerDependencies ?? {}).sort()).toEqual(["cdktf", "constructs"]);
  });

  it("gives an ES module app, a CommonJS app and TypeScript the constructs of examples/cdktf", async () => {
    const app = constructs.app;
    const body = [
      'const app = Testing.app(); const stack = new TerraformStack(app, "demo");',
      'new TunnelgwProvider(stack, "tunnelgw");',
      'const web = new TunnelGroupBackend(stack, "web", { labels: { app: "web" } });',
      'new TlsEdgeBackend(stack, "tls", { edgeId: "edgtls_1", backendId: web.id });',
      "console.log(Testing.synth(stack));",
    ].join("\n");
    const names = "TlsEdgeBackend, TunnelGroupBackend, TunnelgwProvider";
    await writeFile(
      join(app, "synth.mjs"),
      `import { TerraformStack, Testing } from "cdktf";\nimport { ${names} } from "@tunnelgw/cdktf";\n${body}\n`,
    );
    await writeFile(
      join(app, "synth.cjs"),
      `const { TerraformStack, Testing } = require("cdktf");\nconst { ${names} } = require("@tunnelgw/cdktf");\n${body}\n`,
    );
    await writeFile(
      join(app, "synth.mts"),
      `import { TerraformStack, Testing } from "cdktf";\nimport { ${names} } from "@tunnelgw/cdktf";\n${body}\n` +
        '// @ts-expect-error: a required property is missing\nnew TlsEdgeBackend(Testing.app(), "x", { edgeId: "e" });\n',
    );
    const scripts = process.features.require_module ? ["synth.mjs", "synth.cjs"] : ["synth.mjs"];
    for (const script of scripts) {
      const synth = await run(process.execPath, [script], app);
      expect(synth.code, synth.stderr).toBe(0);
      const json = JSON.parse(synth.stdout) as { resource: Record<string, Record<string, unknown>> };
      expect(json.resource.tunnelgw_tls_edge_backend?.tls).toMatchObject({
        edge_id: "edgtls_1",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform reference
        backend_id: "${tunnelgw_tunnel_group_backend.web.id}",
      });
    }
    const flags = ["--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--target", "es2022"];
    const tsc = await run(process.execPath, [TSC, ...flags, "synth.mts"], app);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  });
});
