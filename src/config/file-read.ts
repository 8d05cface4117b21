/**
 * The reads of `${file:PATH}` (docs/configuration.md > `${file:PATH}`), safe against what a
 * configuration can point at:
 *
 * - only regular files: a directory, FIFO, socket or device is refused (a FIFO is opened without
 *   blocking, and the type is checked on the open descriptor, so a swap after a check cannot fool it);
 * - at most MAX_FILE_BYTES, counted while reading (a file that stats as size 0 but never ends, like
 *   `/dev/zero` or `/proc/...`, cannot grow the process);
 * - only inside the allowed roots, after symbolic links are resolved: by default the configuration's
 *   directory tree (the Git work tree that holds a configuration file, or its directory outside Git);
 *   `TGW_FILE_ROOTS` (paths separated by `:`) adds roots;
 * - never under `/proc`, `/sys` or `/dev`, whatever the roots;
 * - never inside a `.git` directory (its `config` may hold the credential of a remote) or a `.tgw`
 *   directory (state, API key tokens, the reference server's key) under a root.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Largest file `${file:}` reads: PEMs, keys and IdP metadata are far smaller. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** The environment variable that widens where `${file:}` may read. */
export const FILE_ROOTS_ENV = "TGW_FILE_ROOTS";

/** Pseudo file systems whose files are never configuration (`/proc/self/environ` holds secrets). */
const FORBIDDEN = ["/proc", "/sys", "/dev"];

/** Directories of Git and of tgw, whose files hold credentials, tokens and state. */
const PRIVATE_DIRS = [".git", ".tgw"];

/** The text of a file, or why it could not be read. */
export type FileRead = { text: string } | { error: string };

/** Whether `path` is `root` or inside it (both absolute and resolved). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** The root of the tree a configuration directory belongs to: its Git work tree, else itself. */
export function treeRootOf(dir: string): string {
  let at = resolve(dir);
  for (;;) {
    if (existsSync(join(at, ".git"))) return at;
    const up = dirname(at);
    if (up === at) return resolve(dir);
    at = up;
  }
}

/** `path` with symbolic links resolved when it exists (else as given, resolved). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The roots `${file:}` may read under: the tree root of each configuration directory plus the
 * entries of `TGW_FILE_ROOTS` (relative entries are relative to `cwd`).
 */
export function fileRoots(
  configDirs: Iterable<string>,
  env: Record<string, string | undefined>,
  cwd: string,
) {
  const roots = new Set<string>();
  for (const dir of configDirs) roots.add(real(treeRootOf(dir)));
  for (const entry of (env[FILE_ROOTS_ENV] ?? "").split(":")) {
    if (entry.trim() !== "") roots.add(real(resolve(cwd, entry.trim())));
  }
  return [...roots];
}

/**
 * Reads a file for `${file:}` within `roots`, as UTF-8 with trailing line breaks removed.
 * @returns the text, or an error in words (never the file's content)
 */
export function readConfinedFile(abs: string, roots: readonly string[]): FileRead {
  const path = real(abs);
  if (FORBIDDEN.some((dir) => isInside(path, dir)) || FORBIDDEN.some((dir) => isInside(abs, dir))) {
    return { error: "files under /proc, /sys and /dev are never read" };
  }
  const root = roots.find((r) => isInside(path, r));
  if (root === undefined) {
    return {
      error: `it is outside the configuration's directory tree (${roots.join(", ")}); set ${FILE_ROOTS_ENV} to allow more directories`,
    };
  }
  const hidden = relative(root, path)
    .split(sep)
    .find((name) => PRIVATE_DIRS.includes(name));
  if (hidden !== undefined) return { error: `files inside a ${hidden} directory are never read` };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      error:
        code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message,
    };
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { error: "it is a directory" };
    if (!stat.isFile()) return { error: "it is not a regular file" };
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_FILE_BYTES) return { error: `it is larger than ${MAX_FILE_BYTES} bytes` };
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
    return {
      text: Buffer.concat(chunks)
        .toString("utf8")
        .replace(/[\r\n]+$/, ""),
    };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    closeSync(fd);
  }
}
