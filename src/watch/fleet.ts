/**
 * What `tgw watch` adds around its loop for teams (docs/watch.md):
 * - a Git source (`--git URL [--branch] [--path]`): a working copy fetched on the interval and on
 *   `POST /hooks/git`, whose commit is the revision reported in health, metrics, logs and the state
 *   history; a revision whose configuration is invalid is reported with its commit id and not applied;
 * - leader election (`--lease`) when the state is in PostgreSQL: only the leader runs the loop, the
 *   other replicas stand by, and health shows each replica's role.
 * The loop itself (./loop.ts) knows none of this: a new loop is started for each term of
 * leadership, reading the working copy like any configuration directory.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { EngineDepsOptions } from "./engine-deps.js";
import type { EventSink, WatchEvent } from "./events.js";
import { GitSource } from "./git.js";
import { type LeaderLockSource, Leadership, type LeadershipStatus } from "./leader.js";
import type { WatchMetrics } from "./metrics.js";
import type { WatchDeps } from "./run.js";
import { initialStatus, type WatchStatus } from "./status.js";
import { verifyWebhook } from "./webhook.js";

/** Environment variable holding the webhook's shared secret. */
export const WEBHOOK_SECRET_ENV = "TGW_GIT_WEBHOOK_SECRET";

/** What health adds for a Git source. */
export interface RevisionStatus {
  repository: string;
  /** Commit checked out last. */
  fetched: string | null;
  /** Commit whose configuration was last applied successfully. */
  applied: string | null;
  /** The last revision found invalid (not applied), with its first problem. */
  invalid: { revision: string; problem: string } | null;
}

/**
 * Makes the directory of this process's working copy: new and unpredictable (`mkdtemp`, mode 0700,
 * under the temporary directory), removed when the process exits. A fixed path could be created first
 * by another local user.
 */
export function makeGitDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tgw-watch-git-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Where a `--git` watcher keeps its state and token files unless `--data-dir` says otherwise:
 * `$XDG_STATE_HOME/tgw/watch-git-<id>`, else `~/.local/state/tgw/watch-git-<id>` (docs/watch.md).
 */
export function defaultGitDataDir(
  url: string,
  branch: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string {
  const base = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "tgw", `watch-git-${gitId(url, branch)}`);
}

function gitId(url: string, branch: string | undefined): string {
  return createHash("sha256")
    .update(`${url}\0${branch ?? ""}`)
    .digest("hex")
    .slice(0, 16);
}

/** Follows a Git source: fetches, tracks the revision loaded, applied and found invalid. */
export class GitFollower {
  readonly source: GitSource;
  readonly #emit: EventSink;
  readonly #metrics: WatchMetrics;
  #loading: string | undefined;
  #loaded: string | undefined;
  #status: RevisionStatus;

  constructor(source: GitSource, emit: EventSink, metrics: WatchMetrics) {
    this.source = source;
    this.#emit = emit;
    this.#metrics = metrics;
    this.#status = { repository: source.display, fetched: null, applied: null, invalid: null };
  }

  status(): RevisionStatus {
    return this.#status;
  }

  /** The revision of the configuration being reconciled. */
  get loaded(): string | undefined {
    return this.#loaded;
  }

  /** The revision of the last load, even one found invalid (`loaded` keeps the last good one). */
  get loading(): string | undefined {
    return this.#loading;
  }

  /** Fetches; reports a new revision. Never throws (a failure is a warning; the next fetch retries). */
  async fetch(): Promise<boolean> {
    try {
      const { revision, changed } = await this.source.sync();
      this.#status = { ...this.#status, fetched: revision };
      if (changed) this.#emit({ type: "revision", status: "fetched", revision });
      return true;
    } catch (err) {
      this.#emit({ type: "warning", message: (err as Error).message });
      return false;
    }
  }

  /**
   * `deps` whose loads read one whole revision, and remember which; a problem names its file as the
   * repository does (`tgw.yaml`, not the working copy's temporary path).
   */
  wrap(deps: WatchDeps): WatchDeps {
    return {
      ...deps,
      configProblems: (err) =>
        deps.configProblems(err)?.map((p) => ({ ...p, file: this.source.repositoryPath(p.file) })),
      load: async () => {
        const { value } = await this.source.whileReading(async () => {
          this.#loading = this.source.revision;
          return deps.load();
        });
        this.#loaded = this.#loading;
        return value;
      },
    };
  }

  /**
   * `event` as the log and the status page show it: the files of its trigger (the working copy's, changed
   * by a checkout) named as the repository names them (`infra/main.yaml`).
   */
  asRepository(event: WatchEvent): WatchEvent {
    if (!("trigger" in event) || event.trigger.files.length === 0) return event;
    const files = event.trigger.files.map((f) => this.source.repositoryPath(f));
    return { ...event, trigger: { ...event.trigger, files } } as WatchEvent;
  }

  /** Reports revisions from the loop's events (config_invalid, reconcile_succeeded). */
  observe(event: WatchEvent): void {
    if (event.type === "config_invalid" && this.#loading !== undefined && !event.repeated) {
      const p = event.problems[0];
      const problem =
        p === undefined
          ? "invalid configuration"
          : `${p.file}:${p.line}:${p.col} at ${this.#loading.slice(0, 12)}: ${p.message}`;
      this.#status = { ...this.#status, invalid: { revision: this.#loading, problem } };
      this.#emit({
        type: "revision",
        status: "invalid",
        revision: this.#loading,
        ...(this.#status.applied === null ? {} : { appliedRevision: this.#status.applied }),
        problem,
      });
    }
    if (event.type === "reconcile_succeeded" && event.mode === "apply" && this.#loaded !== undefined) {
      if (this.#loaded !== this.#status.applied) {
        this.#status = { ...this.#status, applied: this.#loaded };
        this.#metrics.setRevision(this.#loaded);
        this.#emit({ type: "revision", status: "applied", revision: this.#loaded });
      }
    }
  }

  /** The handler of `POST /hooks/git`: checks the secret, then queues a fetch. */
  hook(secret: string | undefined, onFetched: () => void) {
    return (body: Buffer, headers: Record<string, string | string[] | undefined>) => {
      if (secret === undefined || secret === "") {
        return { code: 404, message: `the webhook is off: set ${WEBHOOK_SECRET_ENV}` };
      }
      if (!verifyWebhook(secret, body, headers))
        return { code: 401, message: "the webhook secret does not match" };
      void this.fetch().then(onFetched);
      return { code: 202, message: "fetch queued" };
    };
  }
}

/** Builds a `GitFollower` from the flags. */
export function gitFollower(
  flags: { git: string; branch?: string; path?: string; dataDir?: string },
  emit: EventSink,
  metrics: WatchMetrics,
): GitFollower {
  const source = new GitSource({
    url: flags.git,
    ...(flags.branch === undefined ? {} : { branch: flags.branch }),
    ...(flags.path === undefined ? {} : { path: flags.path }),
    dir: makeGitDir(),
    dataDir: flags.dataDir ?? defaultGitDataDir(flags.git, flags.branch),
  });
  return new GitFollower(source, emit, metrics);
}

/** The health body of a replica: the loop's status, or a standby's, plus role and revision. */
export function replicaStatus(
  loop: (() => WatchStatus) | undefined,
  leadership: LeadershipStatus | undefined,
  revision: RevisionStatus | undefined,
  standbySince: Date,
): WatchStatus & { role?: LeadershipStatus; revision?: RevisionStatus } {
  const base = loop?.() ?? { ...initialStatus(standbySince), status: "standby" as const };
  return {
    ...base,
    ...(leadership === undefined ? {} : { role: leadership }),
    ...(revision === undefined ? {} : { revision }),
  };
}

export type { EngineDepsOptions };
export { type LeaderLockSource, Leadership };
