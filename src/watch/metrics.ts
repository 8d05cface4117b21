/**
 * Prometheus metrics of `tgw watch`, served as `GET /metrics` on the health port (docs/watch.md).
 * Folded from the watch events (src/watch/events.ts) and the API client's responses, in a registry
 * of their own (prom-client): names carry the `tgw_` prefix, base units (seconds) and `_total` on
 * counters. Labels hold kinds, actions, methods and statuses, never addresses or values (bounded
 * cardinality, no secrets).
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `tgw_reconciles_total` | counter | `result` (success, failure, invalid_config, interrupted), `mode` |
 * | `tgw_reconcile_duration_seconds` | histogram | `mode` |
 * | `tgw_drift_detected_total` | counter | `kind` |
 * | `tgw_changes_applied_total` | counter | `action`, `kind` |
 * | `tgw_api_requests_total` | counter | `method`, `status` (`error` when no response) |
 * | `tgw_rate_limit_waits_total` | counter | `source` (`client`: held back by the client's limiter; `api`: a 429 answer waited out) |
 * | `tgw_rate_limit_wait_seconds_total` | counter | time held back by the client's limiter |
 * | `tgw_last_successful_reconcile_timestamp_seconds` | gauge | |
 * | `tgw_consecutive_failures` | gauge | |
 * | `tgw_applied_revision_info` | gauge (1) | `revision` (with `--git`) |
 * | `tgw_leader` | gauge (1 leader, 0 standby) | |
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ResponseEvent } from "../client/index.js";
import { collections } from "../model/index.js";
import type { ChangeSummary, WatchEvent } from "./events.js";

/** The kind of an address: `api_keys.ci` -> `api_key`; a module address -> its last segment. */
export function kindOfAddress(address: string): string {
  const [collection] = address.split(".");
  const kind = collection === undefined ? undefined : collections().get(collection)?.kind;
  return kind ?? address.split(".").at(-1) ?? "unknown";
}

/** The metrics of one `tgw watch` process. */
export class WatchMetrics {
  readonly registry = new Registry();
  readonly #reconciles = new Counter({
    name: "tgw_reconciles_total",
    help: "Reconciles finished, by result (success, failure, invalid_config, interrupted) and mode (apply, plan).",
    labelNames: ["result", "mode"] as const,
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: "tgw_reconcile_duration_seconds",
    help: "Duration of reconciles that reached the API (load, refresh, plan, apply), in seconds.",
    labelNames: ["mode"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly #drift = new Counter({
    name: "tgw_drift_detected_total",
    help: "Changes found that correct drift (live changed behind tgw's back), by kind.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly #applied = new Counter({
    name: "tgw_changes_applied_total",
    help: "Changes applied to the API, by action and kind.",
    labelNames: ["action", "kind"] as const,
    registers: [this.registry],
  });
  readonly #requests = new Counter({
    name: "tgw_api_requests_total",
    help: "API requests (every attempt, retries included), by method and HTTP status (error: no response).",
    labelNames: ["method", "status"] as const,
    registers: [this.registry],
  });
  readonly #rateLimitWaits = new Counter({
    name: "tgw_rate_limit_waits_total",
    help: "Waits imposed by rate limiting: client = held back by tgw's own limiter; api = a 429 answer waited out before retrying.",
    labelNames: ["source"] as const,
    registers: [this.registry],
  });
  readonly #rateLimitSeconds = new Counter({
    name: "tgw_rate_limit_wait_seconds_total",
    help: "Time API calls were held back by tgw's own rate limiter, in seconds.",
    registers: [this.registry],
  });
  readonly #lastSuccess = new Gauge({
    name: "tgw_last_successful_reconcile_timestamp_seconds",
    help: "Unix time of the end of the last successful reconcile (0: none yet).",
    registers: [this.registry],
  });
  readonly #failures = new Gauge({
    name: "tgw_consecutive_failures",
    help: "Failed reconciles in a row (0 after a success).",
    registers: [this.registry],
  });
  readonly #lostTokens = new Gauge({
    name: "tgw_lost_tokens",
    help: "API keys whose token the last successful reconcile found lost (docs/plan.md > Lost tokens).",
    registers: [this.registry],
  });
  readonly #revision = new Gauge({
    name: "tgw_applied_revision_info",
    help: "1 for the revision (Git commit id) of the configuration last applied successfully.",
    labelNames: ["revision"] as const,
    registers: [this.registry],
  });
  readonly #leader = new Gauge({
    name: "tgw_leader",
    help: "1 while this replica is the leader (reconciles), 0 while it stands by.",
    registers: [this.registry],
  });

  constructor() {
    this.#lastSuccess.set(0);
    this.#failures.set(0);
    // A single replica without a shared state is its own leader.
    this.#leader.set(1);
    this.#reconciles.inc({ result: "success", mode: "apply" }, 0);
    this.#reconciles.inc({ result: "failure", mode: "apply" }, 0);
  }

  /** Folds one watch event into the metrics. */
  observe(event: WatchEvent): void {
    switch (event.type) {
      case "reconcile_succeeded":
        this.#reconciles.inc({ result: "success", mode: event.mode });
        this.#duration.observe({ mode: event.mode }, event.durationMs / 1000);
        this.#lastSuccess.set(Date.now() / 1000);
        this.#failures.set(0);
        this.#lostTokens.set(event.lostTokens?.length ?? 0);
        // Plan mode: the drift found and left alone; apply mode counts drift in change_applied.
        if (event.mode === "plan") this.#countDrift(event.changes);
        break;
      case "reconcile_failed":
        this.#reconciles.inc({ result: "failure", mode: event.mode });
        this.#duration.observe({ mode: event.mode }, event.durationMs / 1000);
        this.#failures.inc();
        break;
      case "reconcile_interrupted":
        this.#reconciles.inc({ result: "interrupted", mode: event.mode });
        break;
      case "config_invalid":
        if (event.run !== undefined) this.#reconciles.inc({ result: "invalid_config", mode: "apply" });
        break;
      case "change_applied":
        this.#applied.inc({ action: event.change.action, kind: kindOfAddress(event.change.address) });
        this.#countDrift([event.change]);
        break;
      default:
        break;
    }
  }

  /** Counts one API attempt (the client's `onResponse`). */
  observeResponse(event: ResponseEvent): void {
    this.#requests.inc({
      method: event.method,
      status: event.status === undefined ? "error" : String(event.status),
    });
    if (event.status === 429 && event.retryInMs !== undefined) this.#rateLimitWaits.inc({ source: "api" });
    if (event.rateLimitWaitMs !== undefined) {
      this.#rateLimitWaits.inc({ source: "client" });
      this.#rateLimitSeconds.inc(event.rateLimitWaitMs / 1000);
    }
  }

  /** Sets the revision applied (replaces the previous one). */
  setRevision(revision: string): void {
    this.#revision.reset();
    this.#revision.set({ revision }, 1);
  }

  /** Sets whether this replica leads. */
  setLeader(leader: boolean): void {
    this.#leader.set(leader ? 1 : 0);
  }

  /** The text exposition (`text/plain; version=0.0.4`). */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  #countDrift(changes: ChangeSummary[]): void {
    for (const c of changes) if (c.drift) this.#drift.inc({ kind: kindOfAddress(c.address) });
  }
}
