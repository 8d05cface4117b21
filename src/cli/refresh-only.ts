/**
 * `tgw plan --refresh-only` and `tgw apply --refresh-only` (docs/plan.md > Refresh only; Terraform's
 * `-refresh-only`): show what changed outside tgw and bring the state up to date with the live
 * objects, without changing any object (src/engine/refresh-only.ts says what is recorded).
 */
import { parseDuration } from "../duration.js";
import { type RefreshOnlyPlan, refreshOnly, refreshOnlyWrites } from "../engine/index.js";
import { ExitCode, type StopSignal, UsageError } from "../errors.js";
import { confirm } from "./apply-run.js";
import { type PlanningFlags, targetOptions } from "./options.js";
import { color, warn } from "./output.js";
import { progressLine } from "./render/progress.js";
import { onStopSignals, stoppedBy } from "./stop-signals.js";
import { type TakeoverFlags, takeoverOptions } from "./takeover.js";
import { holder, openTarget, openWorkspace } from "./target.js";

/** The flags a refresh-only run reads. */
export interface RefreshOnlyFlags extends PlanningFlags, TakeoverFlags {
  json?: boolean;
  autoApprove?: boolean;
  lockTimeout?: string;
  detailedExitcode?: boolean;
}

/**
 * Runs a refresh-only plan, or apply with `apply`.
 * @returns the exit code: 2 with `--detailed-exitcode` when something changed outside tgw or the
 *   state would change (plan only), else 0.
 * @throws UsageError (--json without --auto-approve on apply), NotConfirmedError, and the engine's.
 */
export async function runRefreshOnly(opts: RefreshOnlyFlags, how: { apply: boolean }): Promise<number> {
  if (how.apply && opts.json && !opts.autoApprove) throw new UsageError("--json needs --auto-approve");
  const ws = await openWorkspace(opts);
  const target = await openTarget({ configDir: ws.configDir, readOnly: !how.apply });
  // apply: stopped by SIGINT, SIGTERM or SIGHUP as apply is (a plan is only reading: the default).
  const controller = new AbortController();
  let settle = () => Promise.resolve();
  const stopHandling = how.apply
    ? onStopSignals(controller, { notice: stopNotice, settle: () => settle() })
    : () => {};
  try {
    const { plan, applied } = await refreshOnly({
      desired: ws.desired,
      api: target.api,
      store: ws.store,
      apply: how.apply,
      signal: controller.signal,
      onWriting: (s) => {
        settle = s;
      },
      options: {
        lockHolder: holder(how.apply ? "apply --refresh-only" : "plan --refresh-only"),
        lockTimeoutMs: parseDuration(opts.lockTimeout ?? "0s", "--lock-timeout"),
        apiIdentity: target.identity,
        ...(opts.allowApiChange ? { allowApiChange: true } : {}),
        ...targetOptions(opts),
        ...takeoverOptions(opts),
        allowEmpty: true,
      },
      onEvent: (e) => {
        if (e.type === "warning") warn(e.message);
        else if (e.type === "lock_waiting")
          (opts.json ? process.stderr : process.stdout).write(`${progressLine(e, color)}\n`);
        else if (e.type === "planned" && !opts.json) process.stdout.write(renderRefreshOnlyHeader());
      },
      ...(how.apply && !opts.autoApprove ? { approve: (plan) => approver(plan, controller.signal) } : {}),
    });
    if (opts.json) process.stdout.write(`${JSON.stringify(refreshOnlyToJson(plan, applied), null, 2)}\n`);
    else {
      // The prompt showed it already.
      if (!(how.apply && !opts.autoApprove && applied)) process.stdout.write(renderRefreshOnly(plan));
      if (applied) process.stdout.write(color.bold(color.green(`\n${appliedLine(plan)}\n`)));
    }
    const found = plan.changedOutside.length > 0 || refreshOnlyWrites(plan);
    return opts.detailedExitcode && !how.apply && found ? ExitCode.changes : ExitCode.ok;
  } finally {
    stopHandling();
    await target.close();
  }
}

/** What the first stop signal prints. */
function stopNotice(signal: StopSignal): string {
  return `\n${stoppedBy(signal)}.\n`;
}

/** Shows the plan (apply), then asks; a stop signal at the prompt stops the run with its exit code. */
async function approver(plan: RefreshOnlyPlan, signal: AbortSignal): Promise<boolean> {
  process.stdout.write(renderRefreshOnly(plan));
  process.stdout.write("\n");
  const yes = await confirm("Would you like to update the state to reflect these detected changes?", signal);
  signal.throwIfAborted();
  return yes;
}

function renderRefreshOnlyHeader(): string {
  return color.dim(
    "Refresh only: no object is changed; the state is brought up to date with the live objects.\n\n",
  );
}

/** The human refresh-only plan, ending with its summary line. */
export function renderRefreshOnly(plan: RefreshOnlyPlan): string {
  const lines: string[] = [];
  const section = (title: string, rows: string[]) => {
    if (rows.length > 0) lines.push(color.bold(title), ...rows, "");
  };
  section(
    "Changed outside tgw (tgw apply would change them back):",
    plan.changedOutside.map((c) => `  ${color.yellow("~")} ${c.address} (${c.id}): ${c.fields.join(", ")}`),
  );
  section(
    "Deleted outside tgw (their records are dropped from the state):",
    plan.drop.map((d) => `  ${color.red("-")} ${d.address} (${d.id})`),
  );
  section(
    "Found through their ownership marker (recorded in the state):",
    plan.record.map((r) => `  ${color.green("+")} ${r.address} (${r.id})`),
  );
  if (lines.length === 0) return `${color.green("No changes.")} The state matches the live objects.\n`;
  const counts = `${plan.changedOutside.length} changed outside tgw, ${plan.drop.length} record(s) to drop, ${plan.record.length} to add.`;
  return `${lines.join("\n")}\n${color.bold("Refresh-only plan:")} ${counts}\n`;
}

function appliedLine(plan: RefreshOnlyPlan): string {
  return `Refresh complete: ${plan.drop.length} record(s) dropped, ${plan.record.length} added. No object was changed.`;
}

/** The JSON document of a refresh-only run (docs/plan.md > Refresh only). Never a secret. */
export function refreshOnlyToJson(plan: RefreshOnlyPlan, applied: boolean): Record<string, unknown> {
  return {
    format_version: 1,
    refresh_only: true,
    stack: plan.stack,
    changed_outside: plan.changedOutside,
    state_changes: {
      drop: plan.drop,
      record: plan.record.map(({ address, kind, id }) => ({ address, kind, id })),
    },
    applied,
  };
}

/** Refuses the flags a refresh-only run does not take. @throws UsageError naming them */
export function checkRefreshOnlyFlags(flags: Record<string, unknown>): void {
  const bad = Object.entries({ destroy: "--destroy", out: "--out", replace: "--replace", format: "--format" })
    .filter(([k]) => flags[k] !== undefined && flags[k] !== false && !(k === "format" && flags[k] === "json"))
    .map(([, f]) => f);
  if (bad.length > 0) throw new UsageError(`--refresh-only cannot be combined with ${bad.join(", ")}`);
}
