/**
 * The run of `tgw apply` and `tgw destroy` (docs/plan.md): plan, confirm, apply, report, and the
 * options both commands take. See src/cli/commands/apply.ts for what the run does.
 */
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { Colors } from "picocolors/types.js";
import { parseDuration } from "../duration.js";
import {
  ApplyFailedError,
  type ChangeOutcome,
  type EngineEvent,
  type IssuedToken,
  NotConfirmedError,
  type Plan,
  type ReconcileOptions,
  type ReconcileResult,
  reconcile,
} from "../engine/index.js";
import { type StopSignal, TgwError, UsageError } from "../errors.js";
import type { StateApi } from "../state/index.js";
import { forgetReads } from "./early-reads.js";
import {
  type PlanningFlags,
  pageCursorsOption,
  parsePositiveCount,
  safetyOptions,
  targetOptions,
  tokenCommandOption,
  withApiCheck,
  withConfig,
  withSafety,
  withTargets,
} from "./options.js";
import { color, colorErr, jsonDocumentWritten, LineOutput, warn } from "./output.js";
import { type PlanFile, readPlanFile } from "./plan-file.js";
import { partialWarning, writePlan } from "./render/human.js";
import { planToJson } from "./render/json.js";
import {
  ApplyCounter,
  applySummary,
  lostTokenWarning,
  progressLine,
  runnerTokenWarning,
} from "./render/progress.js";
import { onStopSignals, stoppedBy } from "./stop-signals.js";
import { type TakeoverFlags, takeoverOptions, withTakeover } from "./takeover.js";
import { holder, openTarget, openWorkspace } from "./target.js";

/** Options of `apply` and `destroy`. */
export interface ApplyFlags extends PlanningFlags, TakeoverFlags {
  autoApprove?: boolean;
  parallelism?: number;
  lockTimeout?: string;
  json?: boolean;
  showTokens?: boolean;
}

/** Adds the options `apply` and `destroy` share. */
export function withApplyOptions(cmd: Command): Command {
  return withTakeover(withTargets(withApiCheck(withSafety(withConfig(cmd)))))
    .option("--auto-approve", "apply without asking for confirmation (for CI)")
    .option("--parallelism <n>", "API calls in flight at once (default 4)", parsePositiveCount)
    .option(
      "--lock-timeout <duration>",
      "how long to wait for the state lock, e.g. 30s (default 0s: fail at once)",
    )
    .option(
      "--json",
      "print the plan and the outcome of every change as one JSON object (needs --auto-approve)",
    );
}

/**
 * Asks `question` on the terminal; true only for the answer `yes`. `signal` (a stop signal) ends the
 * question: the caller says why. `command`: the command that asks (`apply`, `destroy`), as named when
 * it cannot.
 * @throws NotConfirmedError when stdin is not a terminal.
 */
export async function confirm(question: string, signal?: AbortSignal, command = "apply"): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new NotConfirmedError(
      `stdin is not a terminal, so ${command} cannot ask for confirmation: run with --auto-approve`,
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // Ctrl-C at the prompt (the terminal is in raw mode, so it reaches readline, not the process) = no.
  const cancel = new AbortController();
  rl.on("SIGINT", () => cancel.abort());
  rl.on("close", () => cancel.abort());
  try {
    const answer = await rl.question(
      `${color.bold(question)}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `,
      { signal: signal ? AbortSignal.any([cancel.signal, signal]) : cancel.signal },
    );
    return answer.trim() === "yes";
  } catch {
    process.stdout.write("\n");
    return false;
  } finally {
    rl.close();
  }
}

/** Runs apply (or destroy): plan, confirm, apply, report. Sets the exit code through exceptions. */
export async function runApply(
  opts: ApplyFlags,
  how: { destroy: boolean; planfile?: string },
): Promise<void> {
  const saved = how.planfile ? await readPlanFile(how.planfile) : undefined;
  if (opts.json && !opts.autoApprove && !saved)
    throw new UsageError("--json needs --auto-approve (or a saved plan)");
  if (opts.showTokens && !opts.json) throw new UsageError("--show-tokens only applies with --json");
  const lockTimeoutMs = parseDuration(opts.lockTimeout ?? "0s", "--lock-timeout");
  // A saved plan says whether it destroys (`tgw plan --destroy --out FILE`, then `tgw apply FILE`).
  const destroy = saved ? saved.check.destroy : how.destroy;
  const where = {
    file: opts.file ?? saved?.config ?? [],
    ...(opts.state !== undefined
      ? { state: opts.state }
      : saved?.state !== undefined
        ? { state: saved.state }
        : {}),
  };
  const ws = await openWorkspace(where);
  // Progress lines: one write per line at a terminal, gathered into a few writes into a pipe or file.
  const out = new LineOutput(opts.json ? process.stderr : process.stdout);
  const c = opts.json ? colorErr : color;
  const target = await openTarget({ configDir: ws.configDir });
  // The next plan reads other things (src/cli/early-reads.ts).
  forgetReads(target, where);
  const controller = new AbortController();
  const run: ApplyRun = { opts, saved, destroy, out, c, started: false, lost: new Map(), controller };
  let settle = () => Promise.resolve();
  const stopHandling = onStopSignals(controller, {
    notice: (s) => stopNotice(run, s),
    settle: () => settle(),
  });
  let result: ReconcileResult | undefined;
  try {
    result = await reconcile({
      desired: ws.desired,
      api: target.api,
      store: ws.store,
      signal: controller.signal,
      onEvent: progressHandler(run),
      onWriting: (s) => {
        settle = s;
      },
      options: applyOptions(run, lockTimeoutMs, target.identity, approver(run, ws.desired.stack)),
    });
  } catch (err) {
    reportFailure(run, err);
    throw err;
  } finally {
    stopHandling();
    out.flush();
    await target.close();
  }
  reportApplied(run, result);
}

/** One apply's settings and output, and what its events told so far. */
interface ApplyRun {
  opts: ApplyFlags;
  saved: PlanFile | undefined;
  destroy: boolean;
  /** Progress lines (stderr with --json, else stdout), and their colours. */
  out: LineOutput;
  c: Colors;
  /** Set once the first API call started (a Ctrl-C then lets the calls in flight finish). */
  started: boolean;
  /** The plan, once made. */
  planned?: Plan;
  /** The tokens reported lost, by address. */
  lost: Map<string, { address: string; id: string; file: string }>;
  /** Aborted by the first stop signal (src/cli/stop-signals.ts). */
  controller: AbortController;
}

/** What the first stop signal prints: once calls have started, that those in flight finish. */
function stopNotice(run: ApplyRun, signal: StopSignal): string {
  run.out.flush();
  const what = stoppedBy(signal);
  if (!run.started) return `\n${what}.\n`;
  const again = signal === "SIGINT" ? "Ctrl-C again" : "A second signal";
  return `\n${what}: letting the calls in flight finish; nothing new starts. ${again} to exit at once.\n`;
}

/**
 * The engine's events as output: the plan (unless --json or a saved plan), warnings and progress
 * lines; records the plan, lost tokens and the first call's start in `run`.
 */
function progressHandler(run: ApplyRun): (e: EngineEvent) => void {
  const { opts, saved, out, c } = run;
  const counter = new ApplyCounter();
  return (e) => {
    if (e.type === "token_lost") run.lost.set(e.address, e);
    if (e.type === "planned") {
      run.planned = e.plan;
      if (!opts.json && !saved) writePlan(e.plan, c, (chunk) => out.write(chunk));
    } else if (e.type === "step_started") run.started = true;
    else if (e.type === "warning") warn(e.message);
    const line = progressLine(e, c);
    if (line) out.write(`${line}\n`);
    const count = counter.next(e);
    if (count) out.write(`${c.bold(count)}\n`);
  };
}

/** The confirmation prompt, or undefined when none is asked (a saved plan, --auto-approve). */
function approver(
  { opts, saved, destroy, out, controller }: ApplyRun,
  stack: string,
): (() => Promise<boolean>) | undefined {
  if (saved || opts.autoApprove) return undefined;
  return async () => {
    out.write("\n");
    out.flush();
    const yes = await confirm(
      destroy
        ? `Do you really want to destroy every object of stack "${stack}"? This cannot be undone.`
        : "Do you want to perform these actions?",
      controller.signal,
      destroy ? "destroy" : "apply",
    );
    // A stop signal at the prompt: the run stops with its exit code, not as a "no".
    controller.signal.throwIfAborted();
    return yes;
  };
}

/** The reconcile's options: the flags, or the saved plan's settings where it has them. */
function applyOptions(
  { opts, saved, destroy }: ApplyRun,
  lockTimeoutMs: number,
  apiIdentity: StateApi,
  approve: (() => Promise<boolean>) | undefined,
): ReconcileOptions {
  const replace = saved ? saved.replace : opts.replace;
  return {
    mode: "apply",
    destroy,
    ...(saved ? saved.safety : safetyOptions(opts)),
    ...takeoverOptions(opts),
    ...(destroy ? { allowEmpty: true } : {}),
    ...(opts.parallelism !== undefined ? { parallelism: opts.parallelism } : {}),
    lockTimeoutMs,
    lockHolder: holder(destroy ? "destroy" : "apply"),
    lockScope: "run",
    // Read only by --json and a saved plan's check: not worth computing for every apply.
    lazyFingerprints: true,
    ...(approve ? { approve } : {}),
    ...(saved ? { saved: saved.check } : {}),
    apiIdentity,
    ...pageCursorsOption(apiIdentity),
    ...(replace ? { replace } : {}),
    ...targetOptions(saved ?? opts),
    ...(opts.allowApiChange ? { allowApiChange: true } : {}),
    ...tokenCommandOption(),
  };
}

/** Output for a run that threw: with --json the document of the plan, outcomes so far and error. */
function reportFailure({ opts, out, planned }: ApplyRun, err: unknown): void {
  out.flush();
  if (opts.json) {
    const outcomes = err instanceof ApplyFailedError ? err.outcomes : [];
    process.stdout.write(`${JSON.stringify(jsonResult(planned, outcomes, undefined, err), null, 2)}\n`);
    jsonDocumentWritten();
  } else if (err instanceof ApplyFailedError) out.write("\n");
}

/** Output for a run that ended: the summary (or the --json document), then lost-token warnings. */
function reportApplied({ opts, saved, destroy, out, c, lost }: ApplyRun, result: ReconcileResult): void {
  // Loud, at the very end; the exit code stays 0 (docs/plan.md > Lost tokens).
  const lostWarning =
    lostTokenWarning([...lost.values()], opts.json ? colorErr : c) +
    runnerTokenWarning(result.result?.tokens ?? [], opts.json ? colorErr : c);
  if (opts.json) {
    out.flush();
    process.stderr.write(lostWarning);
    const tokens = opts.showTokens ? result.result?.tokens : undefined;
    process.stdout.write(
      `${JSON.stringify(jsonResult(result.plan, result.result?.outcomes ?? [], tokens), null, 2)}\n`,
    );
    return;
  }
  if (result.result) out.write(`\n${c.green(c.bold(applySummary(result.result, destroy)))}\n`);
  else if (saved) out.write(`${c.green("No changes. Live state matches the configuration.")}\n`);
  if (lostWarning) out.write(`\n${lostWarning}`);
  if (result.plan.partial) out.write(`\n${partialWarning(result.plan.partial, c)}\n`);
  out.flush();
}

function jsonResult(
  plan: Plan | undefined,
  outcomes: ChangeOutcome[],
  tokens?: IssuedToken[],
  error?: unknown,
) {
  return {
    ...(plan ? { plan: planToJson(plan) } : {}),
    outcomes: outcomes.map((o) => ({
      address: o.change.address,
      action: o.change.action,
      status: o.status,
      ...(o.id ? { id: o.id } : {}),
      ...(o.error ? { error: o.error.message } : {}),
    })),
    ...(tokens ? { tokens } : {}),
    ...(error
      ? {
          error: {
            code: error instanceof TgwError ? error.code : "internal",
            message: (error as Error).message,
          },
        }
      : {}),
  };
}
