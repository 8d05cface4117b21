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
import { ProblemList } from "../model/validation/problems.js";
import { ConfigError } from "./errors.js";

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
    const isDir = isDirectory(cwd, abs, problems);
    if (isDir === undefined) continue;
    configDir ??= isDir ? abs : dirname(abs);
    if (!isDir) {
      files.push(abs);
      continue;
    }
    let listed: { found: string[]; dangling: string[] };
    try {
      listed = listConfigFiles(abs);
    } catch (err) {
      problems.add(whole, "", `cannot list this directory (${(err as NodeJS.ErrnoException).code ?? err})`);
      continue;
    }
    const { found, dangling } = listed;
    for (const link of dangling)
      problems.add({ file: displayPath(cwd, link), line: 0, col: 0 }, "", "a symbolic link to nothing");
    if (found.length === 0)
      problems.add(whole, "", "no configuration files (*.yaml, *.yml) in this directory");
    files.push(...found);
  }
  return { files: [...new Set(files)], configDir: configDir ?? resolve(cwd, given[0] ?? ".") };
}

/**
 * Refuses `-f` paths that do not exist with the problem loading a configuration reports for them
 * (`tgw plan -f infr`): for commands that locate the state by `-f` without needing a valid
 * configuration (`tgw state ...`), which would otherwise act on the working directory's state.
 * @throws ConfigError naming every missing path
 */
export function checkConfigPaths(paths: readonly string[], cwd: string): void {
  const problems = new ProblemList();
  for (const p of paths) isDirectory(cwd, resolve(cwd, p), problems);
  if (problems.size > 0) throw new ConfigError(problems.items);
}

/** Whether `-f` path `abs` is a directory; undefined, with a problem added, when it does not exist. */
function isDirectory(cwd: string, abs: string, problems: ProblemList): boolean | undefined {
  try {
    return statSync(abs).isDirectory();
  } catch {
    problems.add({ file: displayPath(cwd, abs), line: 0, col: 0 }, "", "no such file or directory");
    return undefined;
  }
}

/**
 * The configuration files of one directory, one level deep (a plain listing: no glob needed), in name
 * order: files, and links to files, named `*.yaml` / `*.yml`. Links to nothing are returned apart: a
 * configuration file that silently disappeared would plan the deletion of its resources.
 * @returns absolute paths of the files, and of the links to nothing
 * @throws the file system's error when `dir` cannot be read (EACCES...)
 */
function listConfigFiles(dir: string): { found: string[]; dangling: string[] } {
  const found: string[] = [];
  const dangling: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!isConfigFileName(entry.name)) continue;
    const path = resolve(dir, entry.name);
    if (entry.isFile()) found.push(path);
    else if (entry.isSymbolicLink()) {
      let isFile: boolean;
      try {
        isFile = statSync(path).isFile();
      } catch {
        dangling.push(path); // a missing target, or a loop of links
        continue;
      }
      if (isFile) found.push(path);
    }
  }
  return { found: found.sort(), dangling: dangling.sort() };
}

/** The default stack name: the configuration directory's name. */
export function defaultStack(configDir: string): string {
  return basename(configDir);
}
