/**
 * Watches the configuration for `tgw watch` (chokidar 4) and reports changes, debounced.
 *
 * What is watched:
 * - the paths given with `-f`: a file itself; a directory for configuration files added, changed or
 *   removed directly in it (`isConfigFile`, default `*.yaml` and `*.yml` as the config layer reads them);
 * - every file the last successful load read (`setFiles`: the configuration files and those pulled in
 *   by `${file:...}`, wherever they are), re-computed after each load, so a `${file:...}` added by an
 *   edit is watched from then on and one no longer used stops triggering runs.
 * - a synthesized CDKTF stack (`-f cdktf.out/stacks/<stack>`): also from its project directory, since
 *   `cdktf synth` deletes and re-creates `cdktf.out/`, which ends a watch on the stack directory.
 * Never watched: dot folders and dotfiles under a directory (`.tgw/` holds the state file, whose writes
 * must not trigger a run; `.git/`; editor swap files) and `node_modules/`, unless named by `setFiles`.
 * Except `..data` in a watched directory: a Kubernetes ConfigMap volume links each file through it
 * (`tgw.yaml -> ..data/tgw.yaml`) and an update swaps that one link, so its swap is a change.
 *
 * Debounce: changes are collected until `debounceMs` pass without a new one (an editor's save or a
 * `git pull` is one run), but never held longer than `maxWaitMs` (a file rewritten non-stop still runs).
 * Then, before they are reported, changed files still open for writing by another process, or a Git
 * work tree being updated, hold the report for another quiet time (./settle.ts), up to `BUSY_MAX_MS`.
 */
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import { isConfigFileName } from "../config/files.js";
import { synthesizedStackAt } from "../model/synthesized-stack.js";
import { filesOpenForWriting, gitUpdating } from "./settle.js";

/** Longest a change is held while its files are still being written (./settle.ts). */
export const BUSY_MAX_MS = 60_000;

/** Longest wait between two looks at files still being written. */
const BUSY_RECHECK_MAX_MS = 250;

/**
 * Default quiet time: chokidar drops a file's `change` events that follow an earlier one within
 * 50 ms, so a shorter quiet time could read a file before a write whose event was dropped.
 */
export const DEFAULT_DEBOUNCE_MS = 50;

/** The link a Kubernetes ConfigMap volume swaps on every update. */
const CONFIGMAP_LINK = "..data";

/** Settings and callbacks of a `FileWatcher`. */
export interface FileWatcherOptions {
  /** Files and directories given with `-f` (relative to the working directory or absolute). */
  roots: string[];
  /** Quiet time before a change is reported, in ms (default `DEFAULT_DEBOUNCE_MS`). */
  debounceMs?: number;
  /** Longest a change may be held by the debounce, in ms (default: 10 × debounceMs, at least 5 s). */
  maxWaitMs?: number;
  /** Is a path inside a watched directory a configuration file? Default: `*.yaml`, `*.yml`, not dotfiles. */
  isConfigFile?: (path: string) => boolean;
  /** Poll file stats instead of OS events (network file systems, some container mounts). */
  poll?: boolean;
  /** Called with the changed files (absolute, sorted) once the debounce settles. */
  onChange(files: string[]): void;
  /** Called when watching fails (e.g. too many watched files); watching goes on where it can. */
  onError?(error: Error): void;
}

/** The default `isConfigFile`: what the config layer reads in a directory (src/config/files.ts). */
export function isYamlFile(path: string): boolean {
  return isConfigFileName(basename(path));
}

/** A debounced watcher of the configuration. `close()` it when done. */
export class FileWatcher {
  readonly #opts: FileWatcherOptions;
  /** The `-f` paths, absolute. */
  readonly #roots: Set<string>;
  readonly #debounceMs: number;
  readonly #maxWaitMs: number;
  readonly #isConfigFile: (path: string) => boolean;
  readonly #watcher: FSWatcher;
  /** The `..data` links of the roots, watched as links (the main watcher follows links, and misses a swap). */
  readonly #links: FSWatcher;
  /** Watches the `cdk.tf.json` of synthesized stacks from their project directories. */
  readonly #stackWatcher: FSWatcher | undefined;
  /** The `cdk.tf.json` of each root that names a synthesized stack. */
  readonly #stackFiles = new Set<string>();
  /** Files named by the last `setFiles` (absolute). */
  #files = new Set<string>();
  #changed = new Set<string>();
  #quietTimer: NodeJS.Timeout | undefined;
  #maxTimer: NodeJS.Timeout | undefined;
  /** When the changed files were first found still being written (performance.now() ms). */
  #busySince: number | undefined;
  #closed = false;

  /** Starts watching the roots; await `ready()` before relying on events. */
  constructor(opts: FileWatcherOptions) {
    this.#opts = opts;
    this.#roots = new Set(opts.roots.map((p) => resolve(p)));
    this.#debounceMs = opts.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.#maxWaitMs = opts.maxWaitMs ?? Math.max(5_000, 10 * this.#debounceMs);
    this.#isConfigFile = opts.isConfigFile ?? isYamlFile;
    this.#watcher = watch([...this.#roots], {
      ignoreInitial: true,
      // Only the directories' own entries: files elsewhere arrive through setFiles.
      depth: 0,
      usePolling: opts.poll ?? false,
      interval: 250,
      ignored: (path) => this.#ignored(resolve(path)),
    });
    this.#links = watch(
      [...this.#roots].map((r) => join(r, CONFIGMAP_LINK)),
      { ignoreInitial: true, depth: 0, followSymlinks: false, usePolling: opts.poll ?? false, interval: 250 },
    );
    const projects = new Set<string>();
    for (const root of this.#roots) {
      const stack = synthesizedStackAt(root);
      if (!stack || stack.projectDir === stack.stackDir) continue;
      this.#stackFiles.add(stack.file);
      projects.add(stack.projectDir);
    }
    if (projects.size > 0) {
      // Only the directories leading to a stack file, and the file itself.
      const leadsToStack = (path: string) =>
        [...this.#stackFiles].some((f) => f === path || f.startsWith(path + sep));
      this.#stackWatcher = watch([...projects], {
        ignoreInitial: true,
        usePolling: opts.poll ?? false,
        interval: 250,
        ignored: (path) => !leadsToStack(resolve(path)),
      });
    }
    for (const w of this.#watchers()) {
      for (const event of ["add", "change", "unlink"] as const) {
        w.on(event, (path: string) => this.#onEvent(resolve(path)));
      }
      w.on("error", (err: unknown) =>
        this.#opts.onError?.(err instanceof Error ? err : new Error(String(err))),
      );
    }
  }

  /** Resolves once the initial scan is done (changes before it may be missed). */
  async ready(): Promise<void> {
    const ready = (w: FSWatcher) => new Promise<void>((done) => w.once("ready", () => done()));
    await Promise.all(this.#watchers().map(ready));
  }

  /** The chokidar watchers: the roots, their `..data` links, and the synthesized stacks' projects. */
  #watchers(): FSWatcher[] {
    return [this.#watcher, this.#links, ...(this.#stackWatcher ? [this.#stackWatcher] : [])];
  }

  /** The files watched besides the roots (absolute paths), sorted. */
  get files(): string[] {
    return [...this.#files].sort();
  }

  /**
   * Replaces the set of files read by the configuration (absolute or relative to the working
   * directory): new ones are watched, ones no longer read are dropped (unless under a root).
   */
  setFiles(files: Iterable<string>): void {
    if (this.#closed) return;
    const next = new Set([...files].map((f) => resolve(f)));
    const added = [...next].filter((f) => !this.#files.has(f) && !this.#underRoot(f));
    const removed = [...this.#files].filter((f) => !next.has(f) && !this.#underRoot(f));
    this.#files = next;
    if (added.length > 0) this.#watcher.add(added);
    if (removed.length > 0) this.#watcher.unwatch(removed);
  }

  /** Stops watching and drops a change still in its debounce. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clearTimers();
    await Promise.all(this.#watchers().map((w) => w.close()));
  }

  #onEvent(path: string): void {
    if (this.#closed || !this.#relevant(path)) return;
    this.#changed.add(path);
    if (this.#quietTimer !== undefined) clearTimeout(this.#quietTimer);
    this.#quietTimer = setTimeout(() => this.#flush(), this.#debounceMs);
    this.#maxTimer ??= setTimeout(() => this.#flush(), this.#maxWaitMs);
  }

  #flush(): void {
    this.#clearTimers();
    if (this.#closed || this.#changed.size === 0) return;
    // Still being written (./settle.ts): look again, less often the longer it lasts (each look scans
    // /proc), up to BUSY_MAX_MS. A new write's event re-arms the quiet time as usual.
    const busy = [...filesOpenForWriting(this.#changed), ...gitUpdating(this.#roots)];
    if (busy.length > 0) {
      this.#busySince ??= performance.now();
      const held = performance.now() - this.#busySince;
      if (held < BUSY_MAX_MS) {
        const again = Math.min(BUSY_RECHECK_MAX_MS, Math.max(this.#debounceMs, held / 2));
        this.#quietTimer = setTimeout(() => this.#flush(), again);
        return;
      }
      this.#opts.onError?.(
        new Error(`${busy.join(", ")} still being written after ${BUSY_MAX_MS / 1000}s: reading it now`),
      );
    }
    this.#busySince = undefined;
    const files = [...this.#changed].sort();
    this.#changed.clear();
    this.#opts.onChange(files);
  }

  #clearTimers(): void {
    if (this.#quietTimer !== undefined) clearTimeout(this.#quietTimer);
    if (this.#maxTimer !== undefined) clearTimeout(this.#maxTimer);
    this.#quietTimer = undefined;
    this.#maxTimer = undefined;
  }

  /** A change matters if the configuration read the file, or it is a config file in a watched directory. */
  #relevant(path: string): boolean {
    if (this.#files.has(path) || this.#roots.has(path) || this.#stackFiles.has(path)) return true;
    if (!this.#roots.has(dirname(path))) return false;
    return this.#isConfigFile(path) || basename(path) === CONFIGMAP_LINK;
  }

  #underRoot(path: string): boolean {
    return this.#roots.has(path) || this.#roots.has(dirname(path));
  }

  /** Dot entries and node_modules below a root are never watched, unless the configuration read them. */
  #ignored(path: string): boolean {
    if (this.#files.has(path) || this.#roots.has(path)) return false;
    const root = [...this.#roots].find((r) => path.startsWith(r + sep));
    if (root === undefined) return false;
    return relative(root, path)
      .split(sep)
      .some((part) => part.startsWith(".") || part === "node_modules" || part.endsWith("~"));
  }
}
