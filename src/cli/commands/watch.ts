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
import { ExitCode, TgwError, UsageError } from "../../errors.js";
import { configDirOf, resolveStatePath } from "../../state/index.js";
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
import { formatDuration, parseDuration } from "../duration.js";
import { color } from "../output.js";
import { openTarget } from "../target.js";
import type { RegisterCommand } from "./index.js";
import {
  type CommonOptions,
  parsePositiveCount,
  type SafetyFlags,
  safetyOptions,
  withConfig,
  withSafety,
} from "./plan.js";

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
    .option("--debounce <duration>", "quiet time after a file change before reconciling", "500ms")
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
    .addHelpText(
      "after",
      `
Examples:
  $ tgw watch -f config/
  $ tgw watch -f config/ --interval 5m --health-port 9464 --log-format json
  $ tgw watch -f config/ --no-self-heal     # apply edits, only report drift

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
  if (intervalMs < 1_000) throw new UsageError(`--interval must be at least 1s, got ${flags.interval}`);
  if (backoffMaxMs < DEFAULT_BACKOFF.initialMs) {
    throw new UsageError(
      `--backoff-max must be at least ${formatDuration(DEFAULT_BACKOFF.initialMs)}, got ${flags.backoffMax}`,
    );
  }
  const paths = flags.file ?? [];
  const statePath = resolveStatePath({
    ...(flags.state === undefined ? {} : { state: flags.state }),
    config: paths,
  });
  const log = createLog({ format: flags.logFormat, debug, colors: color });
  const metrics = new WatchMetrics();
  const emit: EventSink = (event) => {
    metrics.observe(event);
    log(event);
  };
  const target = await openTarget({
    configDir: configDirOf(paths[0]),
    announce: flags.logFormat === "human",
    retry: { retries: WATCH_DEFAULTS.clientRetries },
    onResponse: (e) => metrics.observeResponse(e),
  });

  let health: HealthServer | undefined;
  try {
    const deps = engineDeps({
      paths,
      statePath,
      api: target.api,
      safety: safetyOptions(flags),
      lockTimeoutMs,
      ...(flags.parallelism === undefined ? {} : { parallelism: flags.parallelism }),
      emit,
    });
    const watch = new WatchLoop({
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
        status: () => watch.status(),
        metrics: () => metrics.render(),
      }).catch((err: NodeJS.ErrnoException) => {
        throw new TgwError(
          "health_port",
          `cannot serve the health endpoint on ${where}: ${err.code ?? err.message}`,
        );
      });
    }
    const stop = (signal: NodeJS.Signals) => {
      // A second signal: exit now (the state lock may be left to be taken over as stale).
      process.once(signal, () => process.exit(ExitCode.interrupted));
      void watch.stop(signal);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    await watch.start(health ? { healthUrl: `${health.url}/healthz` } : {});
    await watch.stopped;
  } finally {
    await health?.close();
    await target.close();
  }
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65_535) {
    throw new UsageError(`--health-port must be a port number (0-65535), got "${text}"`);
  }
  return n;
}
