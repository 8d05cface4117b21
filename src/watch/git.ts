/**
 * A Git repository as the source of `tgw watch --git URL [--branch B] [--path DIR]` (docs/watch.md):
 * a working copy kept with the `git` binary, fetched on the interval and on a webhook, checked out at
 * the fetched commit (detached). The watch loop follows the files of the working copy like any
 * configuration directory, so a new commit that changes them is reconciled; the commit id is the
 * revision reported in health, metrics, logs and the state history.
 *
 * Operations are serialised: a checkout never happens while the configuration is being read
 * (`whileReading`), so a load always sees one whole revision. URLs are shown without credentials.
 *
 * The working copy keeps no credential: a URL's user and password are removed from the remote that
 * Git records and handed to each `git` run in its environment as an HTTP header for that host
 * (`GIT_CONFIG_*`), never on disk. The working copy lives in a directory made for this process
 * (`mkdtemp`, mode 0700), not at a path another local user could create first.
 *
 * The state and token files never live in the working copy, which every checkout cleans: the
 * configuration directory's `.tgw` is a link to the data directory (`--data-dir`), and `.tgw` is
 * excluded from Git there (`.git/info/exclude`), so `git clean` leaves the link.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, cp, lstat, mkdir, readFile, readlink, rm, symlink } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { TgwError } from "../errors.js";
import { redactUrl } from "../state/postgres/url.js";

const run = promisify(execFile);

/** Options of a `GitSource`. */
export interface GitSourceOptions {
  url: string;
  /** Branch (or tag) to follow; default: the remote's default branch (HEAD). */
  branch?: string;
  /** Directory of the configuration inside the repository (default: its root). */
  path?: string;
  /** Where the working copy is kept: a directory this process made, mode 0700 (./fleet.ts). */
  dir: string;
  /** Where the state and token files are kept (the configuration directory's `.tgw` links there). */
  dataDir: string;
}

/** A followed Git repository. */
export class GitSource {
  readonly #opts: GitSourceOptions;
  /** The URL Git records: no user, no password. */
  readonly #remote: string;
  /** What every `git` run adds to its environment: the credential, if the URL held one. */
  readonly #env: Record<string, string>;
  #revision: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: GitSourceOptions) {
    this.#opts = opts;
    const { remote, env } = splitCredential(opts.url);
    this.#remote = remote;
    this.#env = { ...env, GIT_TERMINAL_PROMPT: "0" };
  }

  /** The URL for messages (no password). */
  get display(): string {
    return redactUrl(this.#opts.url);
  }

  /** `file` (as the loader shows it: relative to the working directory, or absolute) as the repository names it. */
  repositoryPath(file: string): string {
    return relative(this.#opts.dir, resolve(file));
  }

  /** The configuration directory in the working copy (`-f` of the watch loop). */
  get configDir(): string {
    return join(this.#opts.dir, this.#opts.path ?? ".");
  }

  /** The commit checked out (undefined before the first sync). */
  get revision(): string | undefined {
    return this.#revision;
  }

  /**
   * Fetches the branch and checks out its commit when it moved.
   * @returns the commit checked out and whether it changed.
   * @throws TgwError (`git`) naming the repository and git's message.
   */
  sync(): Promise<{ revision: string; changed: boolean }> {
    return this.#serial(async () => {
      const dir = this.#opts.dir;
      if (!existsSync(join(dir, ".git"))) {
        await mkdir(dir, { recursive: true });
        await this.#git(["init", "--quiet", dir], undefined);
        await this.#git(["remote", "add", "origin", this.#remote]);
      }
      await this.#git(["fetch", "--quiet", "--depth", "1", "origin", this.#opts.branch ?? "HEAD"]);
      const fetched = (await this.#git(["rev-parse", "FETCH_HEAD^{commit}"])).trim();
      if (fetched === this.#revision) return { revision: fetched, changed: false };
      await this.#excludeDataLink();
      await this.#git(["checkout", "--quiet", "--force", "--detach", fetched]);
      await this.#git(["clean", "--quiet", "-d", "--force"]);
      await this.#linkDataDir();
      this.#revision = fetched;
      return { revision: fetched, changed: true };
    });
  }

  /** Lists `.tgw` in `.git/info/exclude` (once), so that `git clean` keeps the link to the data. */
  async #excludeDataLink(): Promise<void> {
    const exclude = join(this.#opts.dir, ".git", "info", "exclude");
    const text = await readFile(exclude, "utf8").catch(() => "");
    if (text.split("\n").includes(".tgw")) return;
    await mkdir(join(this.#opts.dir, ".git", "info"), { recursive: true });
    await appendFile(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}.tgw\n`);
  }

  /**
   * Makes the configuration directory's `.tgw` a link to the data directory. A real `.tgw` directory
   * there (a working copy of a tgw that kept its state in it) is copied into an empty data directory
   * first, then replaced by the link.
   */
  async #linkDataDir(): Promise<void> {
    const configDir = this.configDir;
    if (!existsSync(configDir)) return; // a revision without the directory: its load reports it
    const link = join(configDir, ".tgw");
    const target = resolve(this.#opts.dataDir);
    const found = await lstat(link).catch(() => undefined);
    if (found?.isSymbolicLink() && resolve(configDir, await readlink(link)) === target) return;
    const fresh = !existsSync(target);
    await mkdir(target, { recursive: true, mode: 0o700 });
    if (found?.isDirectory() && fresh) await cp(link, target, { recursive: true });
    if (found) await rm(link, { recursive: true, force: true });
    await symlink(target, link, "dir");
  }

  /** Runs `fn` (a configuration load) with no checkout in between; gives the revision it read. */
  whileReading<T>(fn: () => Promise<T>): Promise<{ value: T; revision: string | undefined }> {
    return this.#serial(async () => ({ value: await fn(), revision: this.#revision }));
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn, fn);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #git(args: string[], cwd: string | undefined = this.#opts.dir): Promise<string> {
    try {
      const { stdout } = await run("git", args, {
        ...(cwd === undefined ? {} : { cwd }),
        env: { ...process.env, ...this.#env },
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string; code?: string };
      const reason =
        e.code === "ENOENT" ? "the git binary was not found on the PATH" : (e.stderr || e.message).trim();
      throw new TgwError(
        "git",
        `git ${args[0]} of ${this.display} failed: ${redactUrl(reason.split("\n").at(-1) ?? reason)}`,
      );
    }
  }
}

/**
 * An HTTP(S) URL's user and password moved out of it: the URL to record as the remote, and the
 * environment that gives Git the same credential as an `Authorization` header for that host only
 * (`http.<scheme>://<host>/.extraHeader`). Other URLs (ssh, file) are kept as they are.
 */
export function splitCredential(url: string): { remote: string; env: Record<string, string> } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { remote: url, env: {} }; // scp-like `git@host:repo`: no credential in it
  }
  if (!/^https?:$/.test(parsed.protocol) || (parsed.username === "" && parsed.password === "")) {
    return { remote: url, env: {} };
  }
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  const basic = Buffer.from(`${user}:${password}`).toString("base64");
  return {
    remote: parsed.toString(),
    env: {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `http.${parsed.protocol}//${parsed.host}/.extraHeader`,
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    },
  };
}
