/**
 * `tgw watch [-f FILE|DIR]...`: keep live state equal to the configuration, continuously (issue 6,
 * docs/watch.md). Reconciles at startup, on every file change (debounced) and every `--interval`;
 * backs off on failures; serves `/healthz` with `--health-port`; logs one line per reconcile.
 *
 * It never exits on bad input or a failing API: only SIGINT / SIGTERM end it (exit 0, after the calls
 * in flight finish and the state lock is released). A second signal exits at once (130). Flag errors
 * and an unusable health port fail at startup (exit 1), before anything runs.
 */
import { Option } from "commander";
import { loadDesiredState } from "../../config/index.js";
import { ExitCode, TgwError, UsageError } from "../../errors.js";
import { configDirOf } from "../../state/index.js";
import { locateState } from "../../state/open.js";
import type { StateStore } from "../../state/store.js";
import {
  createLog,
  DEFAULT_BACKOFF,
  type EventSink,
  engineDeps,
  type HealthServer,
  startHealthServer,
  WATCH_DEFAULTS,
  WatchLoop,
} from "../../watch/index.js";
import { WatchMetrics } from "../../watch/metrics.js";
import type { RegisterCommand } from "../command.js";
import { formatDuration, parseDuration } from "../duration.js";
import {
  type CommonOptions,
  parsePositiveCount,
  type SafetyFlags,
  safetyOptions,
  tokenCommandOption,
  withConfig,
  withSafety,
} from "../options.js";
import { color } from "../output.js";
import { openTarget } from "../target.js";
import {
  type GitFollower,
  gitFollower,
  type LeaderLockSource,
  Leadership,
  replicaStatus,
  WEBHOOK_SECRET_ENV,
} from "../watch-fleet.js";

interface WatchFlags extends CommonOptions, SafetyFlags {
  interval: string;
  debounce: string;
  selfHeal: boolean;
  healthPort?: number;
  healthHost: string;
  logFormat: "human" | "json";
  backoffMax: string;
  lockTimeout: string;
  parallelism?: number;
  poll?: boolean;
  git?: string;
  branch?: string;
  path?: string;
  dataDir?: string;
  lease: string;
}

/** Registers `tgw watch`. */
export const registerWatch: RegisterCommand = (program) => {
  withSafety(
    withConfig(
      program
        .command("watch")
        .description(
          "keep live state equal to the configuration: apply on file changes and every --interval",
        ),
    ),
  )
    .option("--interval <duration>", "period of the drift check, with ±10% jitter", "60s")
    .option("--debounce <duration>", "quiet time after a file change before reconciling", "50ms")
    .option("--no-self-heal", "only report drift on interval runs; file changes are still applied")
    .option(
      "--health-port <port>",
      "serve GET /healthz, /livez and /metrics (Prometheus) on this port",
      parsePort,
    )
    .option("--health-host <host>", "address of the health endpoint (0.0.0.0 in a container)", "127.0.0.1")
    .addOption(
      new Option("--log-format <format>", "human lines, or JSON lines for log collectors")
        .choices(["human", "json"])
        .default("human"),
    )
    .option("--backoff-max <duration>", "longest wait between attempts while the API keeps failing", "5m")
    .option("--lock-timeout <duration>", "how long an apply waits for the state lock", "10s")
    .option(
      "--parallelism <n>",
      "API calls in flight at once during an apply (default 4)",
      parsePositiveCount,
    )
    .option("--poll", "poll file stats instead of OS file events (network file systems, some mounts)")
    .option(
      "--git <url>",
      "follow a Git repository instead of -f (fetched every --interval and on POST /hooks/git)",
    )
    .option("--branch <name>", "with --git: the branch to follow (default: the remote's default branch)")
    .option("--path <dir>", "with --git: the configuration directory in the repository (default: its root)")
    .option(
      "--data-dir <dir>",
      "with --git: where the state and token files are kept, outside the working copy (default: ~/.local/state/tgw/watch-git-<id>)",
    )
    .option(
      "--lease <duration>",
      "with a PostgreSQL state: the leader lease of replicas; a standby takes over within it",
      "15s",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ tgw watch -f config/
  $ tgw watch -f config/ --interval 5m --health-port 9464 --log-format json
  $ tgw watch -f config/ --no-self-heal     # apply edits, only report drift
  $ tgw watch --git https://git.example.com/infra.git --branch main --path tgw --health-port 9464

Exits 0 on SIGINT or SIGTERM, after the calls in flight finish. See docs/watch.md.`,
    )
    .action(async (flags: WatchFlags, cmd) => {
      await runWatch(flags, Boolean(cmd.optsWithGlobals().debug));
    });
};

async function runWatch(flags: WatchFlags, debug: boolean): Promise<void> {
  const intervalMs = parseDuration(flags.interval, "--interval");
  const debounceMs = parseDuration(flags.debounce, "--debounce");
  const backoffMaxMs = parseDuration(flags.backoffMax, "--backoff-max");
  const lockTimeoutMs = parseDuration(flags.lockTimeout, "--lock-timeout");
  const leaseMs = parseDuration(flags.lease, "--lease");
  if (intervalMs < 1_000) throw new UsageError(`--interval must be at least 1s, got ${flags.interval}`);
  if (backoffMaxMs < DEFAULT_BACKOFF.initialMs) {
    throw new UsageError(
      `--backoff-max must be at least ${formatDuration(DEFAULT_BACKOFF.initialMs)}, got ${flags.backoffMax}`,
    );
  }
  if (leaseMs < 300) throw new UsageError(`--lease must be at least 300ms, got ${flags.lease}`);
  if (flags.git !== undefined && (flags.file ?? []).length > 0) {
    throw new UsageError(
      "--git and -f cannot be used together: --path names the directory in the repository",
    );
  }
  if (
    flags.git === undefined &&
    (flags.branch !== undefined || flags.path !== undefined || flags.dataDir !== undefined)
  ) {
    throw new UsageError("--branch, --path and --data-dir go with --git");
  }
  const log = createLog({ format: flags.logFormat, debug, colors: color });
  const metrics = new WatchMetrics();
  let git: GitFollower | undefined;
  const emit: EventSink = (event) => {
    metrics.observe(event);
    log(event);
    git?.observe(event);
  };
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal: exit now (locks die with the process or are taken over as stale).
    process.once(signal, () => process.exit(ExitCode.interrupted));
    stop.abort(signal);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  if (flags.git !== undefined) {
    git = gitFollower({ ...flags, git: flags.git }, emit, metrics);
    // The first fetch must succeed before anything can be loaded: retry on the interval.
    while (!(await git.fetch())) {
      if (await aborted(stop.signal, Math.min(intervalMs, 5_000))) return;
    }
  }
  const paths = git ? [git.source.configDir] : (flags.file ?? []);
  const initial = await loadDesiredState(paths).catch(() => undefined);
  const location = locateState({ state: flags.state, configured: initial?.stateUrl, config: paths });
  let openStore: ((stack: string) => StateStore) | undefined;
  let leaderLock: LeaderLockSource | undefined;
  if (location.kind === "postgres") {
    if (initial === undefined) {
      throw new UsageError(
        "the configuration must load when tgw watch starts with a PostgreSQL state: its stack names the state and the leader lock (run tgw validate)",
      );
    }
    const { PostgresStateStore } = await import("../../state/postgres/store.js");
    openStore = (stack) => new PostgresStateStore(location.url, { stack, command: "tgw watch" });
    leaderLock = new PostgresStateStore(location.url, { stack: initial.stack, command: "tgw watch" });
  }
  const target = await openTarget({
    configDir: configDirOf(paths[0]),
    announce: flags.logFormat === "human",
    retry: { retries: WATCH_DEFAULTS.clientRetries },
    retryUnreachable: false,
    onResponse: (e) => metrics.observeResponse(e),
  });

  let health: HealthServer | undefined;
  let loop: WatchLoop | undefined;
  let leadership: Leadership | undefined;
  const fetchTimer = git ? setInterval(() => void git?.fetch(), intervalMs) : undefined;
  const standbySince = new Date();
  try {
    const engine = engineDeps({
      paths,
      statePath: location.kind === "file" ? location.path : "",
      api: target.api,
      apiIdentity: target.identity,
      safety: safetyOptions(flags),
      lockTimeoutMs,
      ...(flags.parallelism === undefined ? {} : { parallelism: flags.parallelism }),
      emit,
      ...(openStore === undefined ? {} : { openStore }),
      revision: () => git?.loaded,
      ...tokenCommandOption(),
    });
    const deps = git ? git.wrap(engine) : engine;
    const newLoop = () =>
      new WatchLoop({
        roots: paths.length > 0 ? paths : ["."],
        deps,
        emit,
        intervalMs,
        jitter: WATCH_DEFAULTS.jitter,
        debounceMs,
        selfHeal: flags.selfHeal,
        backoff: { initialMs: DEFAULT_BACKOFF.initialMs, maxMs: backoffMaxMs },
        poll: flags.poll ?? false,
      });
    if (flags.healthPort !== undefined) {
      const where = `${flags.healthHost}:${flags.healthPort}`;
      health = await startHealthServer({
        host: flags.healthHost,
        port: flags.healthPort,
        status: () =>
          replicaStatus(
            loop ? () => (loop as WatchLoop).status() : undefined,
            leadership?.status(),
            git?.status(),
            standbySince,
          ),
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
        leaseMs,
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
    await aborted(stop.signal);
    await loop?.stop(String(stop.signal.reason));
    await leadership?.stop();
  } finally {
    if (fetchTimer) clearInterval(fetchTimer);
    await health?.close();
    await target.close();
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

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65_535) {
    throw new UsageError(`--health-port must be a port number (0-65535), got "${text}"`);
  }
  return n;
}
