/**
 * Where a synthesized CDKTF stack is and which directory it belongs to.
 *
 * - `-f` names a stack by its `cdk.tf.json` (any `*.tf.json` file) or by the directory holding one
 *   (`cdktf.out/stacks/<stack>`).
 * - The project directory is the one holding the synthesis output folder: `cdktf synth` writes
 *   `<project>/cdktf.out/manifest.json` and `<project>/cdktf.out/stacks/<stack>/cdk.tf.json`, and
 *   wipes `cdktf.out/` each time, so tgw keeps its state (`.tgw/`), token files and embedded server
 *   data in the project directory. A `cdk.tf.json` found elsewhere has its own directory as project.
 *
 * Path logic only (no parsing): the CDKTF source (src/config/cdktf/), the state store's default
 * location (src/state/location.ts) and the file watcher all need it, so it sits in the model, below
 * each of them (docs/design.md section 4).
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** The file CDKTF synthesizes per stack. */
export const STACK_FILE = "cdk.tf.json";

/** A synthesized stack named by `-f`, absolute paths. */
export interface SynthesizedStack {
  /** The `cdk.tf.json`. */
  file: string;
  /** Its directory, which relative `file("...")` paths start from (as in Terraform). */
  stackDir: string;
  /** The CDKTF project directory: state, token files and `.tgw/` live here. */
  projectDir: string;
}

/** The synthesized stack that `path` names, or undefined when it names YAML (or nothing). */
export function synthesizedStackAt(path: string, cwd: string = process.cwd()): SynthesizedStack | undefined {
  const abs = resolve(cwd, path);
  let file: string;
  try {
    if (statSync(abs).isDirectory()) {
      file = join(abs, STACK_FILE);
      if (!existsSync(file)) return undefined;
    } else if (abs.endsWith(".tf.json")) file = abs;
    else return undefined;
  } catch {
    return undefined;
  }
  const stackDir = dirname(file);
  return { file, stackDir, projectDir: projectDirOf(stackDir) };
}

/** The first `-f` path that names a synthesized stack. */
export function findSynthesizedStack(
  paths: readonly string[],
  cwd: string = process.cwd(),
): SynthesizedStack | undefined {
  for (const p of paths) {
    const found = synthesizedStackAt(p, cwd);
    if (found) return found;
  }
  return undefined;
}

function projectDirOf(stackDir: string): string {
  const out = resolve(stackDir, "..", "..");
  const isOutput = basename(dirname(stackDir)) === "stacks" && existsSync(join(out, "manifest.json"));
  return isOutput ? dirname(out) : stackDir;
}
