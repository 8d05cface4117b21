/**
 * How `bin/tgw.js` runs the CLI: the bundle `dist/tgw/tgw.cjs` (scripts/bundle.ts), compiled with a V8
 * code cache kept in the user's cache directory (src/cache-dir.ts). Parsing and compiling the bundle is
 * most of what a run's start-up costs (bench/README.md); the cache holds the bytecode of what an earlier run of
 * the same command compiled, so V8 does not do it again. Node 22 has this built in
 * (`module.enableCompileCache`); Node 20 only offers it to scripts compiled through node:vm, as here.
 *
 * - One cache per command (`validate`, `plan`...) and install: `<cache dir>/code-cache/
 *   <command>-<install>-<build>.bin`, mode 0600, the digests naming the bundle's path, then its size
 *   and modification time and Node (version, arch).
 *   The bundle's parts that only some runs load (`server.cjs`, the reference server: scripts/bundle.ts)
 *   are compiled the same way when the bundle asks for them, each with its cache
 *   (`<command>.server-<install>-<build>.bin`).
 * - Written at the exit of a run that had none, or whose cache V8 refused; the same command's cache of
 *   an older build of the same install is removed then (not another install's: several projects may
 *   each have their own), and so is any cache unused for 30 days (an install since removed): a cache
 *   in use has its modification time renewed once a day. V8 itself refuses a cache made for another
 *   source, V8 or flags.
 * - Best effort: a cache that cannot be read or written is ignored; the run is the same without it.
 * - It holds compiled code of the bundle only, never data of a run. `TGW_CODE_CACHE=0` turns it off;
 *   under `--debug` the launcher says on stderr whether a cache was used.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { constants, Script } from "node:vm";
import { userCacheDir } from "../cache-dir.js";
import { mapStackTraces } from "./stack-map.js";

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
export function launch(bundle: string, args: readonly string[], env = process.env): void {
  // The CLI's bundle only: the provider's (src/terraform/launcher.ts) has no package.json above it.
  if (basename(bundle) === "tgw.cjs" && args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    // What commander prints for it, without loading the CLI.
    const pkg = JSON.parse(readFileSync(join(dirname(bundle), "..", "..", "package.json"), "utf8"));
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  const off = env.TGW_CODE_CACHE === "0";
  const debug = args.includes("--debug") || args.includes("-debug"); // -debug: src/cli/single-dash.ts
  const traces = debug ? mapStackTraces(join(dirname(bundle), "..", ".."), WRAPPER.length) : undefined;
  /** Runs the CommonJS script `file` through the code cache; its `module.exports`. */
  const load = (file: string): unknown => {
    const cache = off ? undefined : cacheFile(file, args, env);
    const compiled = compileCached(file, cache);
    traces?.add(file);
    if (debug) process.stderr.write(`tgw: code cache ${compiled.use}${cache ? ` (${cache})` : ""}\n`);
    const module = { exports: {} };
    compiled.run(module.exports, createRequire(file), module, file, dirname(file));
    return module.exports;
  };
  // The bundle's parts that only some runs need (the reference server), loaded through the same cache.
  const parts = new Map<string, unknown>();
  (globalThis as Record<symbol, unknown>)[LOAD_PART] = (name: string): unknown => {
    if (!parts.has(name)) parts.set(name, load(join(dirname(bundle), name)));
    return parts.get(name);
  };
  process.argv = [process.argv[0] ?? process.execPath, bundle, ...args];
  load(bundle);
}

// The same wrapper as Node's for a CommonJS module, on the first line so that line numbers hold.
const WRAPPER = "(function (exports, require, module, __filename, __dirname) { ";

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
  const { data: cachedData, mtimeMs } = (cache === undefined ? undefined : readCache(cache)) ?? {};
  const script = new Script(`${WRAPPER}${source}\n})`, {
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
  else if (cache !== undefined && Date.now() - (mtimeMs ?? 0) > DAY_MS)
    process.once("exit", () => touch(cache));
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  return { run: (...params) => fn.call(params[0], ...params), use };
}

/**
 * The cache file of the script `file` for the command `args` names (see the module doc):
 * `<command>[.<part>]-<install>-<build>.bin`, `<install>` a digest of the script's path and `<build>` of
 * its size, modification time and Node. Undefined when the script cannot be read.
 */
export function cacheFile(file: string, args: readonly string[], env = process.env): string | undefined {
  try {
    const { size, mtimeMs } = statSync(file);
    const word = args.find((a) => !a.startsWith("-")) ?? "tgw";
    const command = /^[a-z]{1,20}$/.test(word) ? word : "other";
    const part = basename(file, ".cjs") === "tgw" ? "" : `.${basename(file, ".cjs")}`;
    const install = digest(file);
    const build = digest([size, mtimeMs, process.version, process.arch].join("\n"));
    return join(userCacheDir(env), "code-cache", `${command}${part}-${install}-${build}.bin`);
  } catch {
    return undefined;
  }
}

const digest = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);

const DAY_MS = 86_400_000;
/** A cache not used for this long belongs to an install that is gone, most likely. */
const UNUSED_MS = 30 * DAY_MS;

/** The cache's bytes and modification time (ms since the epoch); undefined when it cannot be read. */
function readCache(file: string): { data: Buffer; mtimeMs: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const { size, mtimeMs } = fstatSync(fd);
    const data = Buffer.allocUnsafe(size);
    if (readSync(fd, data, 0, size, 0) !== size) return undefined;
    return { data, mtimeMs };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Marks a cache as in use (its modification time), so that writeCache does not take it for unused. */
function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // Best effort, like every cache operation.
  }
}

/**
 * Writes the cache atomically, then removes the caches of the same command and install made for other
 * builds of it (an upgrade); another install's (a project of its own) are kept. Best effort.
 */
function writeCache(file: string, data: Buffer): void {
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data, { mode: 0o600 });
    renameSync(temp, file);
    const name = file.slice(dir.length + 1);
    // `<command>[.<part>]-<install>-`: what is left is the build.
    const prefix = name.slice(0, name.lastIndexOf("-") + 1);
    const unusedSince = Date.now() - UNUSED_MS;
    for (const other of readdirSync(dir)) {
      if (other === name || !(other.endsWith(".bin") || other.endsWith(".tmp"))) continue;
      const path = join(dir, other);
      const olderBuild = other.startsWith(prefix) && other.endsWith(".bin");
      if (olderBuild || (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? unusedSince) < unusedSince)
        rmSync(path, { force: true });
    }
  } catch {
    // A cache is an optimisation: a run never fails for it.
  }
}
