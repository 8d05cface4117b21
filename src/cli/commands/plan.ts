/**
 * `tgw plan [-f FILE|DIR]...`: refresh live state and show the changes that would make it equal the
 * configuration, without changing anything (docs/plan.md).
 *
 * - Human output in the style of `terraform plan`; `--json` prints the JSON plan (stable format).
 * - `--out FILE` saves the plan for `tgw apply FILE` (no secret is written to it).
 * - `--detailed-exitcode`: 0 no changes, 2 changes, 1 error.
 * - The safety checks run here too (`--max-deletes`, `--force`, `--allow-empty`, prevent_destroy), so
 *   CI learns of an unsafe plan before apply; the plan is still printed, then the error.
 *
 * The options it shares with other commands are in src/cli/options.ts, saved plan files in
 * src/cli/plan-file.ts.
 */
import { hasChanges, type Plan, reconcile } from "../../engine/index.js";
import { ExitCode, UsageError } from "../../errors.js";
import type { RegisterCommand } from "../command.js";
import { openPlanWorkspace } from "../early-reads.js";
import {
  type PlanningFlags,
  pageCursorsOption,
  safetyOptions,
  targetOptions,
  withApiCheck,
  withConfig,
  withReplace,
  withSafety,
  withTargets,
} from "../options.js";
import { color, colorErr, helpExamples, warn } from "../output.js";
import { savedStateLocation, writePlanFile } from "../plan-file.js";
import { checkRefreshOnlyFlags, runRefreshOnly } from "../refresh-only.js";
import { writePlan } from "../render/human.js";
import { planToJson } from "../render/json.js";
import { renderPlanMarkdown } from "../render/markdown.js";
import { lostTokenWarning, progressLine } from "../render/progress.js";
import { type TakeoverFlags, takeoverOptions, withTakeover } from "../takeover.js";
import { holder } from "../target.js";

interface PlanOptions extends PlanningFlags, TakeoverFlags {
  json?: boolean;
  format?: string;
  out?: string;
  detailedExitcode?: boolean;
  destroy?: boolean;
  refreshOnly?: boolean;
}

/** Registers `tgw plan`. */
export const registerPlan: RegisterCommand = (program) => {
  withTakeover(
    withTargets(
      withReplace(
        withApiCheck(
          withSafety(
            withConfig(
              program
                .command("plan")
                .description(
                  "show the changes that would make live state equal the configuration (changes nothing)",
                )
                .addHelpText(
                  "after",
                  helpExamples(
                    "tgw plan -f infra/",
                    "tgw plan -f infra/ --detailed-exitcode   # CI: 0 no changes, 2 changes, 1 error",
                    "tgw plan -f infra/ --out tgw.plan        # review, then: tgw apply tgw.plan",
                    "tgw plan -f infra/ --json",
                    "tgw plan -f infra/ --format markdown > plan.md   # a pull request comment",
                    "tgw plan -f infra/ --replace api_keys.ci   # rotate a key",
                    "tgw plan -f infra/ --target api_keys.ci    # only this key and what it needs",
                    "tgw plan -f infra/ --destroy --out gone.plan   # review the deletion, then: tgw apply gone.plan",
                  ),
                ),
            ),
          ),
        ),
      ),
    ),
  )
    .option("--json", "print the plan as JSON (format in docs/plan.md); same as --format json")
    .option(
      "--format <format>",
      "human (default), json, or markdown (a pull request comment: summary table, one collapsible block per change)",
    )
    .option("--out <file>", "save the plan to FILE, to apply exactly it with tgw apply FILE")
    .option(
      "--destroy",
      "plan the deletion of every object of the stack, as tgw destroy would (with --out: applied by tgw apply FILE)",
    )
    .option(
      "--refresh-only",
      "show what changed outside tgw and how the state would be brought up to date with it; no object is changed",
    )
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error")
    .action(async (opts: PlanOptions) => {
      process.exitCode = await runPlan(opts);
    });
};

async function runPlan(opts: PlanOptions): Promise<number> {
  if (opts.refreshOnly) {
    checkRefreshOnlyFlags({ ...opts });
    return runRefreshOnly({ ...opts, json: opts.json || opts.format === "json" }, { apply: false });
  }
  const format = opts.json ? "json" : (opts.format ?? "human");
  if (!["human", "json", "markdown"].includes(format))
    throw new UsageError(`--format must be human, json or markdown, got "${format}"`);
  if (opts.json && opts.format !== undefined && opts.format !== "json")
    throw new UsageError("--json and --format disagree: give one");
  const { ws, target, reads } = await openPlanWorkspace(opts);
  let planned: Plan | undefined;
  const lost = new Map<string, { address: string; id: string; file: string }>();
  const print = (plan: Plan) => {
    if (format === "human") writePlan(plan, color, (chunk) => process.stdout.write(chunk));
    else
      process.stdout.write(
        format === "json" ? `${JSON.stringify(planToJson(plan), null, 2)}\n` : renderPlanMarkdown(plan),
      );
  };
  try {
    const safety = { ...safetyOptions(opts), ...takeoverOptions(opts) };
    const { plan } = await reconcile({
      desired: ws.desired,
      api: reads?.api ?? target.api,
      store: ws.store,
      options: {
        mode: "plan",
        // The human and markdown plans never show the fingerprints: computed only for --json / --out.
        lazyFingerprints: true,
        ...safety,
        ...(opts.destroy ? { destroy: true, allowEmpty: true } : {}),
        lockHolder: holder("plan"),
        apiIdentity: target.identity,
        ...pageCursorsOption(target.identity),
        ...(opts.allowApiChange ? { allowApiChange: true } : {}),
        ...(opts.replace ? { replace: opts.replace } : {}),
        ...targetOptions(opts),
      },
      onEvent: (e) => {
        reads?.onEvent(e);
        if (e.type === "planned") planned = e.plan;
        else if (e.type === "warning") warn(e.message);
        else if (e.type === "token_lost") lost.set(e.address, e);
        else if (e.type === "token_saved") process.stderr.write(`${progressLine(e, colorErr)}\n`);
      },
    });
    reads?.save();
    print(plan);
    process.stderr.write(lostTokenWarning([...lost.values()], colorErr));
    if (opts.out) {
      await writePlanFile(opts.out, plan, {
        config: ws.paths,
        ...(opts.state === undefined ? {} : { state: savedStateLocation(opts.state) }),
        safety,
        ...(opts.replace ? { replace: opts.replace } : {}),
        ...targetOptions(opts),
      });
      if (format === "human")
        process.stdout.write(
          color.dim(`Saved the plan to ${opts.out}; apply it with: tgw apply ${opts.out}\n`),
        );
    }
    return opts.detailedExitcode && hasChanges(plan) ? ExitCode.changes : ExitCode.ok;
  } catch (err) {
    if (planned) print(planned);
    throw err;
  } finally {
    await target.close();
  }
}
