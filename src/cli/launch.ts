/**
 * How `bin/tgw.js` runs the CLI: the bundle `dist/tgw/tgw.cjs` (scripts/bundle.ts), compiled with a V8
 * code cache kept in the user's cache directory (src/cache-dir.ts). Parsing and compiling the bundle is
 * most of what a run's start-up costs (issue 13); the cache holds the bytecode of what an earlier run of
 * the same command compiled, so V8 does not do it again. Node 22 has this built in
 * (`module.enableCompileCache`); Node 20 only offers it to scripts compiled through node:vm, as here.
 *
 * - One cache per command (`validate`, `plan`...): `<cache dir>/code-cache/<command>-<digest>.bin`,
 *   mode 0600, the digest naming the bundle (path, size, modification time) and Node (version, arch).
 *   The bundle's parts that only some runs load (`server.cjs`, the reference server: scripts/bundle.ts)
 *   are compiled the same way when the bundle asks for them, each with its cache
 *   (`<command>.server-<digest>.bin`).
 * - Written at the exit of a run that had none, or whose cache V8 refused; an older cache of the same
 *   command is removed then. V8 itself refuses a cache made for another source, V8 or flags.
 * - Best effort: a cache that cannot be read or written is ignored; the run is the same without it.
 * - It holds compiled code of the bundle only, never data of a run. `TGW_CODE_CACHE=0` turns it off;
 *   under `--debug` the launcher says on stderr whether a cache was used.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { constants, Script } from "node:vm";
import { userCacheDir } from "../cache-dir.js";

/** What a launch did with the code cache, as `--debug` reports it. */
export type CodeCacheUse = "used" | "refused" | "none" | "off";

/**
 * Runs the CLI bundle as the main program with `args` (the words after `tgw`): `process.argv` becomes
 * `[node, bundle, ...args]`. Returns once the bundle's top level has run; the command goes on from
 * there, as the main module of a `node` run does.
 *
 * @param bundle absolute path of `tgw.cjs`
 * @param env where TGW_CODE_CACHE and the cache directory are read (default process.env)
 * @throws Error when the bundle cannot be read or fails at its top level (a broken build)
 */
export function launch(bundle: string, args: readonly string[], env = process.env): CodeCacheUse {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    // What commander prints for it, without loading the CLI.
    const pkg = JSON.parse(readFileSync(join(dirname(bundle), "..", "..", "package.json"), "utf8"));
    process.stdout.write(`${pkg.version}\n`);
    return "none";
  }
  const off = env.TGW_CODE_CACHE === "0";
  const compile = (file: string): { run: (...args: unknown[]) => void; use: CodeCacheUse } => {
    const cache = off ? undefined : cacheFile(file, args, env);
    const compiled = compileCached(file, cache);
    if (args.includes("--debug"))
      process.stderr.write(`tgw: code cache ${compiled.use}${cache ? ` (${cache})` : ""}\n`);
    return compiled;
  };
  // The bundle's parts that only some runs need (the reference server), loaded through the same cache.
  const parts = new Map<string, unknown>();
  (globalThis as Record<symbol, unknown>)[LOAD_PART] = (name: string): unknown => {
    if (!parts.has(name)) {
      const file = join(dirname(bundle), name);
      const module = { exports: {} };
      compile(file).run(module.exports, createRequire(file), module, file, dirname(file));
      parts.set(name, module.exports);
    }
    return parts.get(name);
  };
  const main = compile(bundle);
  process.argv = [process.argv[0] ?? process.execPath, bundle, ...args];
  const module = { exports: {} };
  main.run(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return main.use;
}

/** How the bundle asks the launcher for one of its parts (scripts/bundle.ts). */
const LOAD_PART = Symbol.for("tunnelgw.loadPart");

/**
 * Compiles the CommonJS script `file` with the code cache in `cache` (none: without), and arranges
 * for the cache to be written at exit when there was none or V8 refused it.
 * @returns the module function (Node's wrapper arguments) and what happened to the cache
 */
function compileCached(
  file: string,
  cache: string | undefined,
): { run: (...args: unknown[]) => void; use: CodeCacheUse } {
  // The bundle is ASCII (scripts/bundle.ts): latin1 reads it into a one-byte string, without decoding.
  const source = readFileSync(file, "latin1");
  const cachedData = cache === undefined ? undefined : readCache(cache);
  // The same wrapper as Node's for a CommonJS module, on the first line so that line numbers hold.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const use: CodeCacheUse =
    cache === undefined
      ? "off"
      : cachedData === undefined
        ? "none"
        : script.cachedDataRejected
          ? "refused"
          : "used";
  if (cache !== undefined && use !== "used")
    process.once("exit", () => writeCache(cache, script.createCachedData()));
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  return { run: (...params) => fn.call(params[0], ...params), use };
}

/** The cache file of `bundle` for the command `args` names (see the module doc). */
export function cacheFile(bundle: string, args: readonly string[], env = process.env): string | undefined {
  try {
    const { size, mtimeMs } = statSync(bundle);
    const word = args.find((a) => !a.startsWith("-")) ?? "tgw";
    const command = /^[a-z]{1,20}$/.test(word) ? word : "other";
    const digest = createHash("sha256")
      .update([bundle, size, mtimeMs, process.version, process.arch].join("\n"))
      .digest("hex")
      .slice(0, 24);
    const part = basename(bundle, ".cjs") === "tgw" ? "" : `.${basename(bundle, ".cjs")}`;
    return join(userCacheDir(env), "code-cache", `${command}${part}-${digest}.bin`);
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache atomically, then removes the command's caches of other bundles. Best effort. */
function writeCache(file: string, data: Buffer): void {
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data, { mode: 0o600 });
    renameSync(temp, file);
    const name = file.slice(dir.length + 1);
    const prefix = name.slice(0, name.indexOf("-") + 1);
    for (const other of readdirSync(dir)) {
      if (other.startsWith(prefix) && other !== name && other.endsWith(".bin"))
        rmSync(join(dir, other), { force: true });
    }
  } catch {
    // A cache is an optimisation: a run never fails for it.
  }
}
