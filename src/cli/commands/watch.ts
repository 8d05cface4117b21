/**
 * `tgw watch [-f FILE|DIR]...`: keep live state equal to the configuration, continuously (issue 6,
 * docs/watch.md). Reconciles at startup, on every file change (debounced) and every `--interval`;
 * backs off on failures; serves `/healthz` with `--health-port`; logs one line per reconcile.
 *
 * It never exits on bad input or a failing API: only SIGINT, SIGTERM or SIGHUP end it (exit 0, after the
 * calls in flight finish and the state lock is released). A second signal exits at once (130). Flag errors
 * and an unusable health port fail at startup (exit 1), before anything runs.
 */
import { setFlagsFromString } from "node:v8";
import { Option } from "commander";
import { formatDuration, parseDuration } from "../../duration.js";
import { ExitCode, STOP_SIGNALS, UsageError } from "../../errors.js";
import { createLog, DEFAULT_BACKOFF, WATCH_DEFAULTS } from "../../watch/index.js";
import { runWatchService } from "../../watch/service.js";
import type { RegisterCommand } from "../command.js";
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
      "serve GET /healthz, /livez, /metrics (Prometheus) and the status page (/) on this port",
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

Exits 0 on SIGINT, SIGTERM or SIGHUP, after the calls in flight finish. See docs/watch.md.`,
    )
    .action(async (flags: WatchFlags, cmd) => {
      await runWatch(flags, Boolean(cmd.optsWithGlobals().debug));
    });
};

/**
 * How far V8 lets the heap grow past what the last full collection kept, in percent (V8's flag
 * `--heap-growing-percent`, read at each collection). A watcher keeps a large state for good and makes
 * a whole plan's worth of garbage per reconcile: left to V8's own factor (up to 4x when collecting is
 * cheap), its peak is mostly that garbage, not what it keeps (figures: bench/README.md).
 */
const WATCH_HEAP_GROWING_PERCENT = 100;

/** Bounds the heap's growth between full collections for this long-running process. */
function boundHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${WATCH_HEAP_GROWING_PERCENT}`);
}

async function runWatch(flags: WatchFlags, debug: boolean): Promise<void> {
  const durations = parseDurations(flags);
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
  boundHeapGrowth();
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal, of any of the three: exit now (locks die with the process or are taken over as stale).
    if (stop.signal.aborted) process.exit(ExitCode.interrupted);
    stop.abort(signal);
  };
  for (const signal of Object.keys(STOP_SIGNALS)) process.on(signal, onSignal);
  await runWatchService({
    ...durations,
    paths: flags.file ?? [],
    ...(flags.git === undefined
      ? {}
      : {
          git: {
            url: flags.git,
            ...(flags.branch === undefined ? {} : { branch: flags.branch }),
            ...(flags.path === undefined ? {} : { path: flags.path }),
            ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
          },
        }),
    ...(flags.state === undefined ? {} : { state: flags.state }),
    selfHeal: flags.selfHeal,
    poll: flags.poll ?? false,
    ...(flags.parallelism === undefined ? {} : { parallelism: flags.parallelism }),
    ...(flags.healthPort === undefined ? {} : { health: { host: flags.healthHost, port: flags.healthPort } }),
    safety: safetyOptions(flags),
    ...tokenCommandOption(),
    log: createLog({ format: flags.logFormat, debug, colors: color }),
    openTarget: (configDir, metrics) =>
      openTarget({
        configDir,
        announce: flags.logFormat === "human",
        retry: { retries: WATCH_DEFAULTS.clientRetries },
        probeOutages: true,
        onResponse: (e) => metrics.observeResponse(e),
      }),
    signal: stop.signal,
  });
}

/** The duration flags in ms, checked against their lower bounds. */
function parseDurations(flags: WatchFlags) {
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
  return { intervalMs, debounceMs, backoffMaxMs, lockTimeoutMs, leaseMs };
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65_535) {
    throw new UsageError(`--health-port must be a port number (0-65535), got "${text}"`);
  }
  return n;
}
