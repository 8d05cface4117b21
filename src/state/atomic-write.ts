/**
 * Atomic file replacement: a reader of the path sees the old content or the new one, never a mix, and
 * after a crash (even a power loss) the path holds one of the two.
 *
 * Kept instead of `write-file-atomic`, which cannot express two rules we need: it names its temporary
 * file by a hash, where ours carries the writer's pid so that a later run removes only a dead process's
 * leftovers (`removeStaleTempFiles`), and it does not fsync the directory after the rename.
 */
import { randomBytes } from "node:crypto";
import { open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `content` to a temporary file in the directory of `path` (same file system, so rename is
 * atomic), sets its mode (default 0600: owner only), fsyncs it, renames it over `path` and fsyncs the
 * directory so the rename itself is durable. The temporary file is removed if anything fails.
 * @throws the system error (ENOENT if the directory is missing, EACCES, ENOSPC...).
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  opts: { mode?: number } = {},
): Promise<void> {
  const mode = opts.mode ?? 0o600;
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const file = await open(tmp, "wx", mode);
  try {
    try {
      // Explicit: the mode given to open() is reduced by the umask.
      await file.chmod(mode);
      await file.writeFile(content, "utf8");
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/**
 * Removes the temporary files `writeFileAtomic` left beside `path` when its process was killed between
 * creating and renaming them (`.<name>.<pid>.<hex>.tmp` of a process that no longer runs). The file at
 * `path` is untouched: it holds the old or the new content, whole.
 * @returns the names removed.
 */
export async function removeStaleTempFiles(
  path: string,
  isAlive: (pid: number) => boolean,
): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length));
    if (!name.startsWith(prefix) || !m || isAlive(Number(m[1]))) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Fsyncs a directory, so that a file created or renamed in it survives a crash (best effort). */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}
