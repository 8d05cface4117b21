/**
 * Saved plans: what `tgw plan --out FILE` writes and `tgw apply FILE` reads (docs/plan.md > Saved
 * plans). Holds no secret.
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Plan, planDigest, type SafetyOptions, type SavedPlanCheck } from "../engine/index.js";
import { UsageError } from "../errors.js";
import { type JsonPlan, planToJson } from "./render/json.js";

/** `--state` as a saved plan keeps it: a file as an absolute path, a URL without its password. */
export function savedStateLocation(state: string): string {
  if (!/^postgres(ql)?:\/\//i.test(state)) return resolve(state);
  const url = new URL(state);
  url.password = "";
  return url.toString();
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
  if (
    value?.tgw_plan !== 1 ||
    !value.check?.basis ||
    !Array.isArray(value.config) ||
    !Array.isArray(value.plan?.changes)
  ) {
    throw new UsageError(`${path} is not a plan file made by tgw plan --out`);
  }
  return value;
}
