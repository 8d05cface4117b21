/**
 * Writes API key token files, with their sidecars (./tokens.ts), the first ones of a process in this
 * thread, later ones off the main thread, in batches.
 *
 * Why a worker thread: each token file is three or four file system calls (open, write, close, and a
 * rename when it replaces a file). Through
 * `fs/promises` each is a round trip to libuv's thread pool, and with thousands of tokens those hand-offs
 * (locks, wake-ups, promise jobs) cost the main thread, which also runs the API calls, more than the
 * calls themselves. Synchronous calls on the main thread would be cheapest, but a slow disk would then
 * stall every API call (test/engine/apply-tokens.test.ts). One worker does the calls synchronously:
 * tokens that arrive within a few milliseconds, or while it writes, are sent to it together, one
 * message per batch.
 *
 * Each file is written exactly as the in-thread path does (`writeTokenFileInThread`): the sidecar,
 * then the token, each created in place with `O_EXCL` and mode 0600 (the umask can only take bits
 * away), removed if its write fails, or when a file is there, replaced through `<file>.<pid>.tmp` and a
 * rename; a missing directory made with mode 0700. A write resolves once the token is in its file, so
 * the caller's order (token file, then the state record) holds; a killed process leaves what the
 * in-thread path would (an empty new file, whole or partial temporary files), which the next run
 * handles as before (same names, same pid).
 *
 * Why the sidecar first: a sidecar with no token file beside it describes nothing (a crash between
 * the two leaves that, harmless: the key is not recorded yet, and the next token written there replaces
 * the sidecar first again). The other order could leave, for a moment or after a crash, the new token
 * beside a sidecar left there earlier naming another key. And a sidecar describes a file only while
 * the file holds the token whose digest it names, so even a file changed by hand is never misnamed.
 */
import { existsSync } from "node:fs";
import { chmod, type FileHandle, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import type { DesiredState } from "../model/desired.js";
import { configuredTokenFile, returnsToken, tokenFilePath } from "../model/token-file.js";
import { processIsAlive } from "../state/lock-info.js";
import { sidecarPath } from "./token-sidecar.js";

/**
 * How long a token waits for others before they go to the worker together (ms). A wake-up of the worker
 * costs both threads, and on a busy machine the main thread its core, more than a file's system calls.
 */
const BATCH_MS = 5;

/** One token file to write, with its sidecar's text (written first, at `<path>.json`) when given. */
interface Job {
  path: string;
  token: string;
  sidecar?: string | undefined;
}

/** What the worker answers for one job: null when written, else the error's message and code. */
type JobResult = null | { message: string; code?: string };

interface Pending extends Job {
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The worker's code. The worker runs its source text (`WORKER_SOURCE`), so it works from dist/, from a
 * bundle and from the sources alike with no file to ship; it must therefore use nothing from this
 * module's scope, only globals. `process.getBuiltinModule` works whether Node evaluates the text as
 * CommonJS or, under `--input-type=module` (inherited by the worker), as an ES module.
 */
function workerMain(): void {
  const { parentPort } = process.getBuiltinModule("node:worker_threads");
  const fs = process.getBuiltinModule("node:fs");
  const { dirname } = process.getBuiltinModule("node:path");
  const made = new Set<string>();
  const mkdir = (dir: string): void => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    made.add(dir);
  };
  const open = (file: string, flags: string, dir: string): number => {
    try {
      return fs.openSync(file, flags, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      mkdir(dir);
      return fs.openSync(file, flags, 0o600);
    }
  };
  const put = (path: string, text: string, dir: string): void => {
    let fd: number | undefined;
    try {
      fd = open(path, "wx", dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (fd !== undefined) {
      try {
        if (fs.writeSync(fd, text, null, "utf8") !== Buffer.byteLength(text))
          throw new Error("the token was written in part");
      } catch (err) {
        fs.closeSync(fd);
        fs.rmSync(path, { force: true });
        throw err;
      }
      fs.closeSync(fd);
      return;
    }
    const tmp = `${path}.${process.pid}.tmp`;
    fd = open(tmp, "w", dir);
    try {
      fs.writeSync(fd, text, null, "utf8");
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path);
  };
  const write = ({ path, token, sidecar }: Job): void => {
    const dir = dirname(path);
    if (!made.has(dir)) mkdir(dir);
    if (sidecar !== undefined) put(`${path}.json`, sidecar, dir); // ./token-sidecar.ts sidecarPath: no imports here
    put(path, `${token}\n`, dir);
  };
  parentPort?.on("message", (jobs: Job[]) => {
    const results = jobs.map((job): JobResult => {
      try {
        write(job);
        return null;
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        return { message: String(e?.message), ...(e?.code ? { code: e.code } : {}) };
      }
    });
    parentPort.postMessage(results);
  });
}

// Transpilers that keep function names (tsx, esbuild's keepNames) wrap the inner functions in calls
// to their module's `__name` helper, which the worker does not have: it gets one that does nothing.
const WORKER_SOURCE = `var __name = (f) => f;\n(${String(workerMain)})();`;

/**
 * A worker thread writing token files, started on the first write. The process does not wait for it
 * while it is idle.
 */
export class TokenWriter {
  #worker: Worker | undefined;
  /** Jobs not yet sent to the worker. */
  #queue: Pending[] = [];
  /** The batch the worker is writing. */
  #inFlight: Pending[] = [];
  /** True while a `#pump` is due at the end of this turn of the event loop. */
  #scheduled = false;
  /** Set once the worker failed: `write` then uses `fallback`. */
  #broken = false;
  readonly #fallback: (path: string, token: string, sidecar?: string) => Promise<void>;
  readonly #source: string;

  /**
   * @param fallback writes one file in this thread, used if the worker cannot run or dies.
   * @param source the worker's code (tests: a worker that dies).
   */
  constructor(
    fallback: (path: string, token: string, sidecar?: string) => Promise<void>,
    source = WORKER_SOURCE,
  ) {
    this.#fallback = fallback;
    this.#source = source;
  }

  /**
   * Writes `sidecar` to `<path>.json`, then `token` and a newline to `path` (mode 0600) through the
   * worker; resolves once the file is in place.
   * @throws Error from the file system, with its `code` (EACCES, ENOSPC...).
   */
  write(path: string, token: string, sidecar?: string): Promise<void> {
    if (this.#broken) return this.#fallback(path, token, sidecar);
    return new Promise((resolve, reject) => {
      this.#queue.push({ path, token, sidecar, resolve, reject });
      // Sent `BATCH_MS` later with the tokens of the responses read meanwhile: one message, and one
      // wake-up of the worker, for all of them (the state records these keys once their files are in place).
      if (!this.#scheduled) {
        this.#scheduled = true;
        setTimeout(() => {
          this.#scheduled = false;
          this.#pump();
        }, BATCH_MS);
      }
    });
  }

  #pump(): void {
    if (this.#broken || this.#inFlight.length > 0 || this.#queue.length === 0) return;
    let worker: Worker;
    try {
      worker = this.#start();
    } catch {
      this.#fail();
      return;
    }
    this.#inFlight = this.#queue;
    this.#queue = [];
    worker.ref();
    worker.postMessage(this.#inFlight.map(({ path, token, sidecar }) => ({ path, token, sidecar })));
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#source, { eval: true, stdout: false, stderr: false });
    worker.on("message", (results: JobResult[]) => {
      const batch = this.#inFlight;
      this.#inFlight = [];
      batch.forEach((job, i) => {
        const r = results[i];
        if (r === null) job.resolve();
        else job.reject(Object.assign(new Error(r?.message ?? "token file not written"), { code: r?.code }));
      });
      if (this.#queue.length === 0) worker.unref();
      this.#pump();
    });
    worker.on("error", () => this.#fail());
    worker.on("exit", () => this.#fail());
    this.#worker = worker;
    return worker;
  }

  /** The worker is gone: every job not answered is written in this thread (the same file, again). */
  #fail(): void {
    if (this.#broken) return;
    this.#broken = true;
    const left = [...this.#inFlight, ...this.#queue];
    this.#inFlight = [];
    this.#queue = [];
    void this.#worker?.terminate();
    this.#worker = undefined;
    for (const job of left) this.#fallback(job.path, job.token, job.sidecar).then(job.resolve, job.reject);
  }
}

/**
 * Writes `token` (and a newline) to `path` with mode 0600 (less if the umask says so), after `sidecar`
 * to `<path>.json` when given, creating missing directories with mode 0700; resolves once the token is
 * in `path` (docs/plan.md, "Token files"). Each of the two files:
 * - no file there: created exclusively (`O_EXCL`, which a symlink fails too) and written in one call;
 *   if that write fails the file is removed. Cheaper than a temporary file and a rename
 *   (bench/README.md); a kill between the open and the write leaves an empty file;
 * - a file there: replaced atomically (`<file>.<pid>.tmp`, then a rename). ./tokens.ts never writes a
 *   token over a token file (it sets it aside first): this is for a sidecar left alone, or a race.
 * The first `IN_THREAD_TOKEN_FILES` files of a process are written in this thread; later ones by a
 * worker thread, in batches (an apply of thousands of keys), identically; with `inThread`, in this
 * thread at once (a token written aside once the state lock was lost). A fenced apply queues too: it
 * confirms its lock again once the file is in place, queued or not (./operations.ts keepToken).
 * @throws Error from the file system (permission denied, read-only disk...), with its `code`.
 */
export function writeTokenFile(
  path: string,
  token: string,
  sidecar?: string,
  inThread = false,
): Promise<void> {
  if (inThread || tokenFilesStarted++ < IN_THREAD_TOKEN_FILES)
    return writeTokenFileInThread(path, token, sidecar);
  tokenWriter ??= new TokenWriter(writeTokenFileInThread);
  return tokenWriter.write(path, token, sidecar);
}

/**
 * Token files a process writes in its own thread before handing them to a worker: starting the worker
 * costs about as much as this many files written through the thread pool.
 */
export const IN_THREAD_TOKEN_FILES = 16;

let tokenFilesStarted = 0;
let tokenWriter: TokenWriter | undefined;

/**
 * `writeTokenFile` in this thread, through `fs/promises`: the first files of a process, and the worker's
 * fallback. Exported for tests.
 */
export async function writeTokenFileInThread(path: string, token: string, sidecar?: string): Promise<void> {
  const dir = dirname(path);
  // One mkdir per directory and process, not one per token (an apply writes hundreds into one).
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    madeDirs.add(dir);
  }
  if (sidecar !== undefined) await putFile(sidecarPath(path), sidecar, dir);
  await putFile(path, `${token}\n`, dir);
}

/** Writes `text` to `path` (mode 0600): created in place when no file is there, else replaced atomically. */
async function putFile(path: string, text: string, dir: string): Promise<void> {
  // `wx` fails on any existing name, a symlink included.
  const created = await openOrMakeDir(path, "wx", dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "EEXIST") return undefined;
    throw err;
  });
  if (created) {
    try {
      const { bytesWritten } = await created.write(text, null, "utf8");
      if (bytesWritten !== Buffer.byteLength(text)) throw new Error("the token was written in part");
    } catch (err) {
      // Never leave an empty or partial file behind (this process made it).
      await created.close().catch(() => {});
      await rm(path, { force: true });
      throw err;
    }
    await created.close();
    return;
  }
  // A file is there: replaced atomically, never seen half written.
  const tmp = `${path}.${process.pid}.tmp`;
  const file = await openOrMakeDir(tmp, "w", dir);
  try {
    // No chmod: the umask can only take bits away from 0600, so the file is never readable by others.
    await file.write(text, null, "utf8");
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

/** Opens `path` with mode 0600, making `dir` again when it was removed since it was made. */
function openOrMakeDir(path: string, flags: string, dir: string): Promise<FileHandle> {
  return open(path, flags, 0o600).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return open(path, flags, 0o600);
  });
}

/** Directories `writeTokenFileInThread` made (or found) in this process. */
const madeDirs = new Set<string>();

/**
 * Finishes the token writes a killed apply left half done: `<token file>.<pid>.tmp` of a process that
 * no longer runs. A whole token (it ends with the newline written after it) whose token file does not
 * exist is moved into place, so it is not lost: its sidecar was renamed into place before the token
 * was written. Any other leftover (a sidecar's `<token file>.json.<pid>.tmp`
 * included) is removed.
 * @returns the addresses whose token was saved this way.
 */
export async function recoverTokenFiles(desired: DesiredState): Promise<string[]> {
  const saved: string[] = [];
  // The token files by directory, each directory listed once for its temporary files (keys share
  // one secrets directory, which usually has none: then no key of it is looked at again).
  const byDir = new Map<string, { address: string; file: string }[]>();
  for (const r of desired.resources) {
    if (!returnsToken(r.kind)) continue;
    const file = tokenFilePath(configuredTokenFile(r), desired.configDir);
    const keys = byDir.get(dirname(file));
    if (keys) keys.push({ address: r.address, file });
    else byDir.set(dirname(file), [{ address: r.address, file }]);
  }
  for (const [dir, keys] of byDir) {
    const names = await readdir(dir).then(
      (all) => all.filter((n) => n.endsWith(".tmp")),
      () => [],
    );
    if (names.length === 0) continue;
    for (const { address, file } of keys) {
      const prefix = `${basename(file)}.`;
      for (const name of names) {
        const m = /^(json\.)?(\d+)\.tmp$/.exec(name.slice(prefix.length));
        if (!name.startsWith(prefix) || !m || processIsAlive(Number(m[2]))) continue;
        const tmp = join(dir, name);
        const whole = m[1] === undefined && /^\S+\n$/.test(await readFile(tmp, "utf8").catch(() => ""));
        if (whole && !existsSync(file)) {
          await chmod(tmp, 0o600);
          await rename(tmp, file);
          saved.push(address);
        } else await rm(tmp, { force: true });
      }
    }
  }
  return saved;
}
