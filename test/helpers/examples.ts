/**
 * The repository's `examples/` as tests see it: only what is committed there, never what a user's run
 * left behind (`.tgw/` with state, token files and the embedded server's data, after the README's main
 * job). Tests copy examples with `copyExamples` and read configuration files with `exampleConfigFiles`.
 */
import { readdirSync } from "node:fs";
import { cp } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the repository's `examples/`, with a trailing slash. */
export const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));

/** What a run of `tgw` (or a CDKTF synth, npm or terraform) writes inside a configuration directory. */
const LEFTOVERS = new Set([
  ".tgw",
  "cdktf.out",
  "node_modules",
  ".terraform",
  ".terraform.lock.hcl",
  "terraform.tfstate",
  "terraform.tfstate.backup",
]);

/** Whether `path` is something a run left behind rather than a committed example file. */
export function isLeftover(path: string): boolean {
  return LEFTOVERS.has(basename(path));
}

/**
 * Copies `from` (default: the repository's examples) to `to`, leaving out run leftovers.
 * @param to destination directory (created); @param from source directory.
 */
export async function copyExamples(to: string, from: string = EXAMPLES): Promise<void> {
  await cp(from, to, { recursive: true, filter: (src) => !isLeftover(src) });
}

/**
 * The YAML configuration files directly in `dir` (regular files named `*.yaml` / `*.yml`), sorted.
 * @param dir absolute directory.
 * @returns absolute paths.
 */
export function exampleConfigFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && /\.ya?ml$/.test(d.name))
    .map((d) => join(dir, d.name))
    .sort();
}

/**
 * The YAML configuration files anywhere under `dir` (default: the repository's examples), run
 * leftovers skipped, sorted.
 * @returns absolute paths.
 */
export function allExampleConfigFiles(dir: string = EXAMPLES): string[] {
  const subdirs = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !isLeftover(d.name))
    .map((d) => join(dir, d.name));
  return [...exampleConfigFiles(dir), ...subdirs.flatMap((sub) => allExampleConfigFiles(sub))].sort();
}
