/**
 * `tgw watch` as a service (docs/watch.md): the configuration source (files or a Git repository), the
 * state store and its leader lock, the API, the health endpoint and the loop, wired together and run
 * until `signal` aborts. The CLI command (src/cli/commands/watch.ts) only parses flags, opens the API
 * and handles process signals; everything it hands over is in `WatchServiceOptions`.
 */
import type { Api } from "../client/index.js";
import { loadDesiredState } from "../config/index.js";
import type { SafetyOptions } from "../engine/index.js";
import { TgwError, UsageError } from "../errors.js";
import { configDirOf, type StateApi } from "../state/index.js";
import { locateState } from "../state/open.js";
import type { StateStore } from "../state/store.js";
import { DEFAULT_BACKOFF } from "./backoff.js";
import { engineDeps } from "./engine-deps.js";
import type { EventSink } from "./events.js";
import {
  type GitFollower,
  gitFollower,
  type LeaderLockSource,
  Leadership,
  replicaStatus,
  WEBHOOK_SECRET_ENV,
} from "./fleet.js";
import { type HealthServer, startHealthServer } from "./health.js";
import { WATCH_DEFAULTS, WatchLoop } from "./loop.js";
import { WatchMetrics } from "./metrics.js";
import { StatusBoard } from "./status-page.js";

/** The API a watcher talks to (the CLI's `openTarget`). */
export interface WatchTarget {
  api: Api;
  identity: StateApi;
  close(): Promise<void>;
}

/** Everything `runWatchService` needs; durations in ms. */
export interface WatchServiceOptions {
  /** The `-f` paths (unused with `git`). */
  paths: string[];
  /** Follow a Git repository instead of `paths`. */
  git?: { url: string; branch?: string; path?: string; dataDir?: string };
  /** `--state`: a file path or a postgres:// URL. */
  state?: string;
  intervalMs: number;
  debounceMs: number;
  backoffMaxMs: number;
  lockTimeoutMs: number;
  /** Leader lease of replicas (PostgreSQL state). */
  leaseMs: number;
  selfHeal: boolean;
  poll: boolean;
  parallelism?: number;
  health?: { host: string; port: number };
  safety: SafetyOptions;
  tokenCommand?: string;
  /** Where every watch event goes (the log). */
  log: EventSink;
  /** Opens the API once the configuration directory is known. */
  openTarget(configDir: string, metrics: WatchMetrics): Promise<WatchTarget>;
  /** Aborted on SIGINT / SIGTERM / SIGHUP: the loop stops, calls in flight finish. */
  signal: AbortSignal;
}

/**
 * Runs `tgw watch` until `opts.signal` aborts.
 * @throws UsageError when a PostgreSQL state is used and the configuration does not load at start;
 *   TgwError (`health_port`) when the health endpoint cannot listen.
 */
export async function runWatchService(opts: WatchServiceOptions): Promise<void> {
  const metrics = new WatchMetrics();
  let git: GitFollower | undefined;
  const board = new StatusBoard({ revision: () => git?.loading });
  const emit: EventSink = (event) => {
    metrics.observe(event);
    const shown = git ? git.asRepository(event) : event;
    board.observe(shown);
    opts.log(shown);
    git?.observe(event);
  };
  if (opts.git !== undefined) {
    const { url, branch, path, dataDir } = opts.git;
    const flags = {
      git: url,
      ...(branch === undefined ? {} : { branch }),
      ...(path === undefined ? {} : { path }),
      ...(dataDir === undefined ? {} : { dataDir }),
    };
    git = gitFollower(flags, emit, metrics);
    // The first fetch must succeed before anything can be loaded: retry on the interval.
    while (!(await git.fetch())) {
      if (await aborted(opts.signal, Math.min(opts.intervalMs, 5_000))) return;
    }
  }
  const paths = git ? [git.source.configDir] : opts.paths;
  const { statePath, openStore, leaderLock } = await stateStores(opts.state, paths, opts.leaseMs);
  const target = await opts.openTarget(configDirOf(paths[0]), metrics);
  const fetchTimer = git ? setInterval(() => void git?.fetch(), opts.intervalMs) : undefined;
  try {
    const engine = engineDeps({
      paths,
      statePath,
      api: target.api,
      apiIdentity: target.identity,
      safety: opts.safety,
      lockTimeoutMs: opts.lockTimeoutMs,
      ...(opts.parallelism === undefined ? {} : { parallelism: opts.parallelism }),
      emit,
      ...(openStore === undefined ? {} : { openStore }),
      revision: () => git?.loaded,
      observer: board,
      ...(opts.tokenCommand ? { tokenCommand: opts.tokenCommand } : {}),
    });
    const deps = git ? git.wrap(engine) : engine;
    const newLoop = () =>
      new WatchLoop({
        roots: paths.length > 0 ? paths : ["."],
        deps,
        emit,
        intervalMs: opts.intervalMs,
        jitter: WATCH_DEFAULTS.jitter,
        debounceMs: opts.debounceMs,
        selfHeal: opts.selfHeal,
        backoff: { initialMs: DEFAULT_BACKOFF.initialMs, maxMs: opts.backoffMaxMs },
        poll: opts.poll,
      });
    await serve(opts, { emit, metrics, board, git, leaderLock, newLoop });
  } finally {
    if (fetchTimer) clearInterval(fetchTimer);
    await target.close();
  }
}

/**
 * The state's stores: with PostgreSQL, one per stack and the leader lock of the configuration's
 * stack; with a file, its path (engineDeps opens the file store).
 */
async function stateStores(
  state: string | undefined,
  paths: string[],
  leaseMs: number,
): Promise<{ statePath: string; openStore?: (stack: string) => StateStore; leaderLock?: LeaderLockSource }> {
  const initial = await loadDesiredState(paths).catch(() => undefined);
  const location = locateState({ state, configured: initial?.stateUrl, config: paths });
  if (location.kind !== "postgres") return { statePath: location.path };
  if (initial === undefined) {
    throw new UsageError(
      "the configuration must load when tgw watch starts with a PostgreSQL state: its stack names the state and the leader lock (run tgw validate)",
    );
  }
  const { PostgresStateStore } = await import("../state/postgres/store.js");
  return {
    statePath: "",
    // The state lock takes the leadership's lease: a frozen leader loses both within one lease.
    openStore: (stack) =>
      new PostgresStateStore(location.url, { stack, command: "tgw watch", lockLeaseMs: leaseMs }),
    leaderLock: new PostgresStateStore(location.url, { stack: initial.stack, command: "tgw watch" }),
  };
}

/** The health endpoint, and the loop: at once, or for each term of leadership; until aborted. */
async function serve(
  opts: WatchServiceOptions,
  parts: {
    emit: EventSink;
    metrics: WatchMetrics;
    board: StatusBoard;
    git: GitFollower | undefined;
    leaderLock: LeaderLockSource | undefined;
    newLoop: () => WatchLoop;
  },
): Promise<void> {
  const { emit, metrics, board, git, leaderLock, newLoop } = parts;
  let loop: WatchLoop | undefined;
  let leadership: Leadership | undefined;
  const standbySince = new Date();
  let health: HealthServer | undefined;
  try {
    if (opts.health !== undefined) {
      const where = `${opts.health.host}:${opts.health.port}`;
      const status = () =>
        replicaStatus(
          loop ? () => (loop as WatchLoop).status() : undefined,
          leadership?.status(),
          git?.status(),
          standbySince,
        );
      health = await startHealthServer({
        ...opts.health,
        status,
        page: () => ({ ...board.view(), health: status() }),
        metrics: () => metrics.render(),
        ...(git ? { gitHook: git.hook(process.env[WEBHOOK_SECRET_ENV], () => {}) } : {}),
      }).catch((err: NodeJS.ErrnoException) => {
        throw new TgwError(
          "health_port",
          `cannot serve the health endpoint on ${where}: ${err.code ?? err.message}`,
        );
      });
    }
    const info = health ? { healthUrl: `${health.url}/healthz` } : {};
    if (leaderLock !== undefined) {
      metrics.setLeader(false);
      leadership = new Leadership({
        source: leaderLock,
        leaseMs: opts.leaseMs,
        holder: "tgw watch",
        emit,
        onElected: () => {
          metrics.setLeader(true);
          loop = newLoop();
          void loop.start(info);
        },
        onDeposed: async (reason) => {
          metrics.setLeader(false);
          const ending = loop;
          loop = undefined;
          await ending?.stop(reason);
        },
      });
      leadership.start();
    } else {
      loop = newLoop();
      await loop.start(info);
    }
    await aborted(opts.signal);
    await loop?.stop(String(opts.signal.reason));
    await leadership?.stop();
  } finally {
    await health?.close();
  }
}

/** Resolves true once `signal` is aborted, or false after `ms` (never, without `ms`). */
function aborted(signal: AbortSignal, ms?: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = ms === undefined ? undefined : setTimeout(() => done(false), ms);
    function done(value: boolean) {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    }
    const onAbort = () => done(true);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
