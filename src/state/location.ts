/**
 * Where a stack's state lives by default: `<config dir>/.tgw/state.json`, so the state travels with
 * the configuration it belongs to. `plan`, `apply` and `tgw state` all locate it with these functions.
 */
import { statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { synthesizedStackAt } from "../model/synthesized-stack.js";

/** The state file, relative to the configuration directory. */
export const STATE_FILE = join(".tgw", "state.json");

/** `<configDir>/.tgw/state.json`. */
export function defaultStatePath(configDir: string): string {
  return join(configDir, STATE_FILE);
}

/**
 * The configuration directory named by the first `-f` argument: the argument itself when it is a
 * directory, else the directory of the file (also when it does not exist yet). Without `-f`: `cwd`.
 * A synthesized CDKTF stack (`cdktf.out/stacks/<stack>`) belongs to its CDKTF project directory,
 * since `cdktf synth` wipes `cdktf.out/` (docs/cdktf.md).
 */
export function configDirOf(firstConfig: string | undefined, cwd: string = process.cwd()): string {
  if (firstConfig === undefined) return cwd;
  const synthesized = synthesizedStackAt(firstConfig, cwd);
  if (synthesized) return synthesized.projectDir;
  const path = resolve(cwd, firstConfig);
  try {
    if (statSync(path).isDirectory()) return path;
  } catch {
    // Missing: the config layer reports it; the state would be beside it.
  }
  return dirname(path);
}

/**
 * The state file a command uses: `--state` when given (relative to `cwd`), else
 * `<dir of the first -f, or cwd>/.tgw/state.json`; for a synthesized CDKTF stack
 * `<project>/.tgw/stacks/<stack>/state.json`, as one CDKTF project often has several stacks.
 */
export function resolveStatePath(opts: { state?: string; config?: string[]; cwd?: string }): string {
  const cwd = opts.cwd ?? process.cwd();
  if (opts.state !== undefined) return resolve(cwd, opts.state);
  const first = opts.config?.[0];
  const synthesized = first === undefined ? undefined : synthesizedStackAt(first, cwd);
  if (synthesized && synthesized.projectDir !== synthesized.stackDir) {
    return join(synthesized.projectDir, ".tgw", "stacks", basename(synthesized.stackDir), "state.json");
  }
  return defaultStatePath(configDirOf(first, cwd));
}
