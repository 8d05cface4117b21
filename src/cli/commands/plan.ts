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
 * Also exports what `apply` and `destroy` share with it: the common options and saved plan files.
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import {
  hasChanges,
  type Plan,
  planDigest,
  reconcile,
  type SafetyOptions,
  type SavedPlanCheck,
} from "../../engine/index.js";
import { ExitCode, UsageError } from "../../errors.js";
import { color, colorErr, helpExamples, warn } from "../output.js";
import { renderPlan } from "../render/human.js";
import { type JsonPlan, planToJson } from "../render/json.js";
import { renderPlanMarkdown } from "../render/markdown.js";
import { lostTokenWarning, progressLine } from "../render/progress.js";
import { type TakeoverFlags, takeoverOptions, withTakeover } from "../takeover.js";
import { holder, openTarget, openWorkspace } from "../target.js";
import type { RegisterCommand } from "./index.js";

/** Options every engine command takes. */
export interface CommonOptions {
  file?: string[];
  state?: string;
}

/** `--allow-api-change` as commander parses it. */
export interface ApiCheckFlags {
  allowApiChange?: boolean;
}

/** Adds `--allow-api-change` (docs/state.md > Which API a state belongs to). */
export function withApiCheck(cmd: Command): Command {
  return cmd.option(
    "--allow-api-change",
    "use a state that records another API than this run's (an apply then records this one)",
  );
}

/** Safety options as commander parses them. */
export interface SafetyFlags {
  maxDeletes?: number;
  force?: boolean;
  allowEmpty?: boolean;
}

/** Adds `-f` and `--state`. */
export function withConfig(cmd: Command): Command {
  return cmd
    .option(
      "-f, --file <path>",
      "configuration file, or directory of *.yaml / *.yml files (repeatable; default: the current directory)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      "--state <path|url>",
      "state file or postgres:// URL (default: TGW_STATE_URL, the configuration's state: block, or .tgw/state.json beside the first -f)",
    );
}

/** `--target` and `--exclude` as commander parses them. */
export interface TargetFlags {
  target?: string[];
  exclude?: string[];
}

/** Adds `--target ADDRESS` and `--exclude ADDRESS` (repeatable; docs/plan.md > Targeting). */
export function withTargets(cmd: Command): Command {
  const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
  return cmd
    .option(
      "--target <address>",
      "plan only this address (or collection, e.g. api_keys) and what it depends on (repeatable)",
      collect,
    )
    .option(
      "--exclude <address>",
      "leave this address and what depends on it out of the plan (repeatable)",
      collect,
    );
}

/** The engine options of `--target` / `--exclude`. */
export function targetOptions(flags: TargetFlags): { target?: string[]; exclude?: string[] } {
  return {
    ...(flags.target ? { target: flags.target } : {}),
    ...(flags.exclude ? { exclude: flags.exclude } : {}),
  };
}

/** `--replace` as commander parses it. */
export interface ReplaceFlags {
  replace?: string[];
}

/** Adds `--replace ADDRESS` (repeatable). */
export function withReplace(cmd: Command): Command {
  return cmd.option(
    "--replace <address>",
    "replace this object even if it did not change, e.g. api_keys.ci to rotate its token (repeatable)",
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

/** `--state` as a saved plan keeps it: a file as an absolute path, a URL without its password. */
function savedStateLocation(state: string): string {
  if (!/^postgres(ql)?:\/\//i.test(state)) return resolve(state);
  const url = new URL(state);
  url.password = "";
  return url.toString();
}

/** Adds `--max-deletes`, `--force`, `--allow-empty`. */
export function withSafety(cmd: Command): Command {
  return cmd
    .option("--max-deletes <n>", "refuse a plan that deletes (or replaces) more than N objects", parseCount)
    .option("--force", "allow more deletions than --max-deletes")
    .option("--allow-empty", "allow an empty configuration to delete everything the stack owns");
}

/** Parses a non-negative whole number option. */
export function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) {
    throw new UsageError(`expected a whole number, got "${text}"`);
  }
  return n;
}

/** Parses a whole number option of at least 1 (`--parallelism`). */
export function parsePositiveCount(text: string): number {
  const n = parseCount(text);
  if (n < 1) throw new UsageError(`expected a whole number of at least 1, got "${text}"`);
  return n;
}

/** The safety options of the engine from the flags. */
export function safetyOptions(flags: SafetyFlags): SafetyOptions {
  return {
    ...(flags.maxDeletes === undefined ? {} : { maxDeletes: flags.maxDeletes }),
    ...(flags.force ? { force: true } : {}),
    ...(flags.allowEmpty ? { allowEmpty: true } : {}),
  };
}

/** A plan saved by `tgw plan --out FILE` (docs/plan.md > Saved plans). Holds no secret. */
export interface PlanFile {
  tgw_plan: 1;
  created_at: string;
  /** Absolute `-f` paths the plan was made from (`tgw apply FILE` reloads them). */
  config: string[];
  /** The `--state` given to plan, if any. */
  state?: string;
  /** Safety flags given to plan; apply checks the plan again with them. */
  safety: SafetyOptions;
  /** `--replace` addresses given to plan; apply plans again with them. */
  replace?: string[];
  /** `--target` / `--exclude` given to plan; apply plans again with them. */
  target?: string[];
  exclude?: string[];
  /** What the plan was made against (engine `SavedPlanCheck`). */
  check: SavedPlanCheck;
  plan: JsonPlan;
}

/** Writes a saved plan (mode 0600). */
export async function writePlanFile(
  path: string,
  plan: Plan,
  info: Pick<PlanFile, "config" | "state" | "safety" | "replace" | "target" | "exclude">,
): Promise<void> {
  const file: PlanFile = {
    tgw_plan: 1,
    created_at: new Date().toISOString(),
    config: info.config,
    ...(info.state === undefined ? {} : { state: info.state }),
    safety: info.safety,
    ...(info.replace && info.replace.length > 0 ? { replace: info.replace } : {}),
    ...(info.target ? { target: info.target } : {}),
    ...(info.exclude ? { exclude: info.exclude } : {}),
    check: { basis: plan.basis, digest: planDigest(plan), destroy: plan.destroy },
    plan: planToJson(plan),
  };
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Reads a saved plan.
 * @throws UsageError when the file cannot be read or is not a tgw plan.
 */
export async function readPlanFile(path: string): Promise<PlanFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read the plan file ${path}: ${(err as Error).message}`);
  }
  let value: PlanFile;
  try {
    value = JSON.parse(text) as PlanFile;
  } catch {
    throw new UsageError(`${path} is not a plan file made by tgw plan --out (not JSON)`);
  }
  if (value?.tgw_plan !== 1 || !value.check?.basis || !Array.isArray(value.config)) {
    throw new UsageError(`${path} is not a plan file made by tgw plan --out`);
  }
  return value;
}

interface PlanOptions
  extends CommonOptions,
    SafetyFlags,
    ApiCheckFlags,
    ReplaceFlags,
    TargetFlags,
    TakeoverFlags {
  json?: boolean;
  format?: string;
  out?: string;
  detailedExitcode?: boolean;
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
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error")
    .action(async (opts: PlanOptions) => {
      process.exitCode = await runPlan(opts);
    });
};

async function runPlan(opts: PlanOptions): Promise<number> {
  const format = opts.json ? "json" : (opts.format ?? "human");
  if (!["human", "json", "markdown"].includes(format))
    throw new UsageError(`--format must be human, json or markdown, got "${format}"`);
  if (opts.json && opts.format !== undefined && opts.format !== "json")
    throw new UsageError("--json and --format disagree: give one");
  const ws = await openWorkspace(opts);
  const target = await openTarget({ configDir: ws.configDir, readOnly: true });
  let planned: Plan | undefined;
  const lost = new Map<string, { address: string; id: string; file: string }>();
  const print = (plan: Plan) => {
    process.stdout.write(
      format === "json"
        ? `${JSON.stringify(planToJson(plan), null, 2)}\n`
        : format === "markdown"
          ? renderPlanMarkdown(plan)
          : renderPlan(plan, color),
    );
  };
  try {
    const safety = { ...safetyOptions(opts), ...takeoverOptions(opts, opts.detailedExitcode) };
    const { plan } = await reconcile({
      desired: ws.desired,
      api: target.api,
      store: ws.store,
      options: {
        mode: "plan",
        ...safety,
        lockHolder: holder("plan"),
        apiIdentity: target.identity,
        ...(opts.allowApiChange ? { allowApiChange: true } : {}),
        ...(opts.replace ? { replace: opts.replace } : {}),
        ...targetOptions(opts),
      },
      onEvent: (e) => {
        if (e.type === "planned") planned = e.plan;
        else if (e.type === "warning") warn(e.message);
        else if (e.type === "token_lost") lost.set(e.address, e);
        else if (e.type === "token_saved") process.stderr.write(`${progressLine(e, colorErr)}\n`);
      },
    });
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
