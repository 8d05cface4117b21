/**
 * Which files make up the configuration: each `-f` path is a file, or a directory whose `*.yaml` and
 * `*.yml` files (not sub-directories, not dot-files, so never `.tgw/`) are read in name order. No path
 * means the working directory. The configuration directory (stack name default, `.tgw/`) is the first
 * path's directory.
 *
 * Symbolic links to files are followed wherever they point (a Kubernetes ConfigMap mounts each key as
 * `name.yaml -> ..data/name.yaml`); the configuration names the link, never its target. A link whose
 * target is missing is a problem, not skipped: skipping it would plan to delete its resources.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import { globSync } from "tinyglobby";
import type { ProblemList } from "./errors.js";

/** The configuration files, in order, and the configuration directory (absolute paths). */
export interface ConfigFiles {
  files: string[];
  configDir: string;
}

/** How paths are shown: relative to `cwd` when inside it, else absolute. */
export function displayPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/** Whether a file name in a configuration directory is read: `*.yaml` or `*.yml`, not a dotfile. */
export function isConfigFileName(name: string): boolean {
  return /^[^.].*\.ya?ml$/.test(name);
}

/** Expands `paths` (relative to `cwd`); missing paths and empty directories are problems. */
export function findConfigFiles(paths: readonly string[], cwd: string, problems: ProblemList): ConfigFiles {
  const given = paths.length > 0 ? paths : ["."];
  const files: string[] = [];
  let configDir: string | undefined;
  for (const p of given) {
    const abs = resolve(cwd, p);
    const whole = { file: displayPath(cwd, abs), line: 0, col: 0 };
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      problems.add(whole, "", "no such file or directory");
      continue;
    }
    configDir ??= isDir ? abs : dirname(abs);
    if (!isDir) {
      files.push(abs);
      continue;
    }
    const found = globSync(["*.yaml", "*.yml"], { cwd: abs, dot: false, onlyFiles: true })
      .filter(isConfigFileName)
      .map((name) => resolve(abs, name))
      .sort();
    for (const link of danglingLinks(abs))
      problems.add({ file: displayPath(cwd, link), line: 0, col: 0 }, "", "a symbolic link to nothing");
    if (found.length === 0)
      problems.add(whole, "", "no configuration files (*.yaml, *.yml) in this directory");
    files.push(...found);
  }
  return { files: [...new Set(files)], configDir: configDir ?? resolve(cwd, given[0] ?? ".") };
}

/**
 * Configuration file names in `dir` that are symbolic links to nothing. tinyglobby leaves them out
 * without a word, and a configuration file that silently disappears plans the deletion of its resources.
 */
function danglingLinks(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isSymbolicLink() && isConfigFileName(d.name))
    .map((d) => resolve(dir, d.name))
    .filter((link) => {
      try {
        statSync(link);
        return false;
      } catch {
        return true;
      }
    });
}

/** The default stack name: the configuration directory's name. */
export function defaultStack(configDir: string): string {
  return basename(configDir);
}
