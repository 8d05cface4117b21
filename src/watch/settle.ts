/**
 * Whether changed files are still being written, so that `tgw watch` never reads a half-written file
 * (docs/watch.md > "When a change is read"). The debounce only says that no write happened for a
 * moment; a writer may pause longer than that (a slow download, a script writing in steps). Two
 * signals say "not finished yet", whatever the pause:
 *
 * - a process still has the file open for writing. Linux only: read from `/proc/<pid>/fd` and
 *   `/proc/<pid>/fdinfo` of the processes this one may inspect (its own user's, or all as root);
 *   elsewhere, or for other users' processes, only the debounce applies. The scan is bounded in time
 *   (`SCAN_BUDGET_MS`) so a host with very many processes does not slow every reconcile;
 * - Git is updating the work tree: `.git/index.lock` exists in the repository holding a watched
 *   directory (`git pull`, `checkout`, `merge` and `reset` hold it while they write files).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { treeRootOf } from "../config/file-read.js";

/**
 * Longest a scan of `/proc` may take; past it, files not found open yet count as settled. A scan takes
 * 10-40 ms on a host with a hundred processes (more when it is loaded): the bound only matters on a
 * host with many thousands.
 */
export const SCAN_BUDGET_MS = 1_000;

/** Write-access bits of `flags` in `/proc/<pid>/fdinfo/<fd>` (octal): O_WRONLY 1, O_RDWR 2. */
const WRITE_ACCESS = 0o3;

/**
 * The paths of `files` that some other process has open for writing (resolved through symbolic
 * links). Empty where `/proc` cannot tell (not Linux).
 */
export function filesOpenForWriting(files: Iterable<string>): string[] {
  const wanted = new Map<string, string>();
  for (const file of files) {
    try {
      wanted.set(realpathSync(file), file);
    } catch {
      // Deleted: nothing is writing it under this name.
    }
  }
  if (wanted.size === 0 || process.platform !== "linux") return [];
  const found = new Set<string>();
  const deadline = performance.now() + SCAN_BUDGET_MS;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return [];
  }
  for (const pid of pids) {
    if (performance.now() > deadline) break;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      const file = wanted.get(safe(() => readlinkSync(`/proc/${pid}/fd/${fd}`)) ?? "");
      if (file === undefined || found.has(file)) continue;
      const info = safe(() => readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8")) ?? "";
      const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & WRITE_ACCESS) !== 0) found.add(file);
    }
  }
  return [...found].sort();
}

/** The Git repositories holding `dirs` whose work tree Git is updating now (`.git/index.lock`). */
export function gitUpdating(dirs: Iterable<string>): string[] {
  const repos = new Set<string>();
  for (const dir of dirs) {
    const root = treeRootOf(dir);
    if (existsSync(join(root, ".git", "index.lock"))) repos.add(root);
  }
  return [...repos].sort();
}

function safe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
