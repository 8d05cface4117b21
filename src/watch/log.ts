/**
 * The log of `tgw watch`: every event (src/watch/events.ts) as one human line (default) or one JSON
 * object per line (`--log-format json`, pino) for log collectors. Both go to one stream (stdout), in
 * order. Every finished reconcile says its trigger, what it changed (counts and addresses) and how long
 * it took; an invalid configuration is shown with the positions `tgw validate` prints.
 *
 * Levels: reconcile start and each applied change are `debug` (shown with `--debug`); a failed or
 * invalid reconcile is `error`; a scheduled retry and watcher trouble are `warn`; the rest `info`.
 */
import { relative } from "node:path";
import type { createColors } from "picocolors";
import pino from "pino";
import { formatProblem } from "../config/index.js";
import { formatDuration } from "../duration.js";
import {
  type ChangeAction,
  type ChangeSummary,
  countChanges,
  type EventSink,
  type WatchEvent,
} from "./events.js";
import { describeTrigger } from "./trigger.js";

type Colors = ReturnType<typeof createColors>;
type Level = "debug" | "info" | "warn" | "error";

/** Settings of the log. */
export interface LogOptions {
  format: "human" | "json";
  /** Show debug events (reconcile starts, each applied change, stack traces of internal errors). */
  debug: boolean;
  /** Where lines go (default: stdout). */
  out?: NodeJS.WritableStream & { fd?: number };
  /** Colours of human lines (default: none). */
  colors?: Colors;
  /** Base for relative file names in messages (default: the working directory). */
  cwd?: string;
}

const SYMBOL: Record<ChangeAction, string> = {
  create: "+",
  update: "~",
  replace: "-/+",
  put: "~",
  delete: "-",
  forget: ".",
};

/** Creates the event sink that writes the log. */
export function createLog(opts: LogOptions): EventSink {
  const cwd = opts.cwd ?? process.cwd();
  const show = (file: string) => (file.startsWith("/") ? relative(cwd, file) || "." : file);
  if (opts.format === "json") {
    const out = opts.out ?? process.stdout;
    const logger = pino(
      {
        level: opts.debug ? "debug" : "info",
        base: { pid: process.pid, name: "tgw-watch" },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      // Synchronous writes: a line logged just before exit is never lost.
      out === process.stdout ? pino.destination({ dest: 1, sync: true }) : out,
    );
    return (event) => {
      const level = levelOf(event);
      const fields = fieldsOf(event, show);
      if (!opts.debug) delete fields.stack; // stack traces of internal errors only with --debug
      logger[level](fields, describe(event, show, undefined).text);
    };
  }
  const out = opts.out ?? process.stdout;
  const c = opts.colors;
  return (event) => {
    const level = levelOf(event);
    if (level === "debug" && !opts.debug) return;
    const { text, detail } = describe(event, show, c);
    const time = new Date().toISOString();
    const head = c ? c.dim(time) : time;
    const colored = !c ? text : level === "error" ? c.red(text) : level === "warn" ? c.yellow(text) : text;
    const lines = [`${head} ${colored}`, ...detail.map((d) => `  ${d}`)];
    if (event.type === "reconcile_failed" && event.stack && opts.debug) lines.push(event.stack);
    out.write(`${lines.join("\n")}\n`);
  };
}

function levelOf(event: WatchEvent): Level {
  switch (event.type) {
    case "reconcile_started":
    case "change_applied":
      return "debug";
    case "reconcile_failed":
    case "config_invalid":
      return "error";
    case "retry_scheduled":
    case "reconcile_interrupted":
    case "warning":
      return "warn";
    case "revision":
      return event.status === "invalid" ? "error" : "info";
    default:
      return "info";
  }
}

/** The one-line message of an event and the lines under it (config problems). */
function describe(
  event: WatchEvent,
  show: (file: string) => string,
  c: Colors | undefined,
): { text: string; detail: string[] } {
  const run = (n: number | undefined, t: Parameters<typeof describeTrigger>[0]) =>
    `${n === undefined ? "check" : `reconcile #${n}`} (${describeTrigger(t, show)})`;
  switch (event.type) {
    case "started":
      return { text: startedText(event, show), detail: [] };
    case "reconcile_started":
      return {
        text: `${run(event.run, event.trigger)}: ${event.mode === "apply" ? "applying" : "planning"}`,
        detail: [],
      };
    case "change_applied": {
      const took = event.durationMs === undefined ? "" : ` (${formatDuration(event.durationMs)})`;
      return { text: `reconcile #${event.run}: ${changeText(event.change, c)} done${took}`, detail: [] };
    }
    case "reconcile_succeeded":
      return { text: succeededText(event, run(event.run, event.trigger), c), detail: [] };
    case "config_invalid": {
      const n = event.problems.length;
      const head = `${run(event.run, event.trigger)}: invalid configuration, nothing applied (${n} ${n === 1 ? "problem" : "problems"}${event.repeated ? ", unchanged since last reported" : ""})`;
      return {
        text: head,
        // Problems already shown are not printed again (an interval run finding the same file).
        detail: event.repeated ? [] : event.problems.map((p) => formatProblem({ ...p, file: show(p.file) })),
      };
    }
    case "config_queued": {
      const when = event.retryAt === undefined ? "" : ` at ${new Date(event.retryAt).toISOString()}`;
      return {
        text: `${run(undefined, event.trigger)}: configuration valid; it will be applied by the next attempt${when}`,
        detail: [],
      };
    }
    case "reconcile_failed":
      return failedText(event, run(event.run, event.trigger), c);
    case "reconcile_interrupted": {
      const done =
        event.applied.length === 0
          ? "nothing applied"
          : `applied ${countText(event.applied)}: ${event.applied.map((ch) => changeText(ch, c)).join(", ")}`;
      return {
        text: `${run(event.run, event.trigger)}: interrupted after ${formatDuration(event.durationMs)}; ${done}`,
        detail: [],
      };
    }
    case "retry_scheduled":
      return { text: retryText(event), detail: [] };
    case "warning":
      return { text: event.message, detail: [] };
    case "waiting_for_lock":
      return { text: `reconcile #${event.run}: waiting for the state lock of ${event.location}`, detail: [] };
    case "stopping":
      return { text: `stopping (${event.signal}): letting the calls in flight finish`, detail: [] };
    case "stopped":
      return { text: "stopped", detail: [] };
    case "leadership":
      return {
        text:
          event.role === "leader"
            ? "leader: this replica reconciles"
            : `standby${event.leader === undefined ? "" : `: ${event.leader} leads`}${event.reason === undefined ? "" : ` (${event.reason})`}`,
        detail: [],
      };
    case "revision":
      return revisionText(event);
  }
}

/** An event of type `T`. */
type EventOf<T extends WatchEvent["type"]> = Extract<WatchEvent, { type: T }>;

function startedText(event: EventOf<"started">, show: (file: string) => string): string {
  const heal = event.selfHeal ? "self-heal on" : "self-heal off: drift is reported, not corrected";
  const health = event.healthUrl ? `; health on ${event.healthUrl}` : "";
  return `watching ${event.roots.map(show).join(", ")} (interval ${formatDuration(event.intervalMs)}, debounce ${formatDuration(event.debounceMs)}, ${heal})${health}`;
}

/** `head`: the run's name and trigger. */
function succeededText(event: EventOf<"reconcile_succeeded">, head: string, c: Colors | undefined): string {
  const took = formatDuration(event.durationMs);
  if (event.changes.length === 0) return `${head}: no changes (${took})`;
  const what = `${countText(event.changes)}: ${event.changes.map((ch) => changeText(ch, c)).join(", ")}`;
  return event.mode === "apply"
    ? `${head}: applied ${what} (${took})`
    : `${head}: found ${what}; not applied (--no-self-heal) (${took})`;
}

/** `head`: the run's name and trigger. */
function failedText(
  event: EventOf<"reconcile_failed">,
  head: string,
  c: Colors | undefined,
): { text: string; detail: string[] } {
  const done =
    event.applied.length === 0
      ? ""
      : ` (applied before the failure: ${countText(event.applied)}: ${event.applied.map((ch) => changeText(ch, c)).join(", ")})`;
  // Multi-line messages (an apply that failed on several changes) keep their lines, indented.
  const [first, ...rest] = event.message.split("\n");
  return {
    text: `${head}: failed after ${formatDuration(event.durationMs)}: [${event.code}] ${first}${done}`,
    detail: rest.map((line) => line.trimStart()),
  };
}

function retryText(event: EventOf<"retry_scheduled">): string {
  const why = event.progress
    ? "progress made: changes were applied"
    : `${event.failures} ${event.failures === 1 ? "failure" : "failures"} in a row`;
  const asked =
    event.retryAfterMs === undefined ? "" : `; the API asked to wait ${formatDuration(event.retryAfterMs)}`;
  return `retrying in ${formatDuration(event.inMs)} (${why}${asked})`;
}

function revisionText(event: EventOf<"revision">): { text: string; detail: string[] } {
  const short = event.revision.slice(0, 12);
  if (event.status === "fetched") return { text: `git: fetched revision ${short}`, detail: [] };
  if (event.status === "applied") return { text: `git: revision ${short} applied`, detail: [] };
  const kept =
    event.appliedRevision === undefined
      ? ""
      : `; revision ${event.appliedRevision.slice(0, 12)} stays applied`;
  return {
    text: `git: revision ${short} is invalid and was not applied${kept}`,
    detail: event.problem === undefined ? [] : [event.problem],
  };
}

/** Structured fields of the JSON log (the message is the human line). */
function fieldsOf(event: WatchEvent, show: (file: string) => string): Record<string, unknown> {
  const fields: Record<string, unknown> = { event: event.type };
  for (const [key, value] of Object.entries(event)) {
    if (key === "type") continue;
    if (key === "trigger" && value && typeof value === "object") {
      const t = value as Parameters<typeof describeTrigger>[0];
      fields.trigger = { ...t, files: t.files.map(show), text: describeTrigger(t, show) };
    } else if (key === "roots") {
      fields.roots = (value as string[]).map(show);
    } else if (key === "problems") {
      fields.problems = (value as { file: string }[]).map((p) => ({ ...p, file: show(p.file) }));
    } else if (key === "changes" || key === "applied") {
      fields[key] = value;
      fields[`${key}Count`] = countChanges(value as ChangeSummary[]);
    } else {
      fields[key] = value;
    }
  }
  return fields;
}

function changeText(ch: ChangeSummary, c: Colors | undefined): string {
  const symbol = SYMBOL[ch.action];
  const drift = ch.drift ? " (drift)" : "";
  if (!c) return `${symbol} ${ch.address}${drift}`;
  const paint = ch.action === "create" ? c.green : ch.action === "delete" ? c.red : c.yellow;
  return `${paint(symbol)} ${ch.address}${drift}`;
}

/** `1 create, 2 update` in the fixed action order. */
function countText(changes: ChangeSummary[]): string {
  return Object.entries(countChanges(changes))
    .map(([action, n]) => `${n} ${action}`)
    .join(", ");
}
