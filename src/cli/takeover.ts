/**
 * `--takeover` (plan, apply, destroy): objects of the stack whose ownership markers record another
 * state lineage (another workspace's state wrote them) are warned about; under `--detailed-exitcode`
 * or `CI=true` the plan is refused unless `--takeover` is given (docs/state.md > Two workspaces of
 * one stack).
 */
import type { Command } from "commander";
import type { SafetyOptions } from "../engine/index.js";

/** The flag `--takeover`. */
export interface TakeoverFlags {
  takeover?: boolean;
}

/** Adds `--takeover`. */
export function withTakeover(cmd: Command): Command {
  return cmd.option(
    "--takeover",
    "proceed although objects of the stack carry markers of another state lineage (another workspace's state)",
  );
}

/** True when the environment says this runs in CI (`CI=true`, as CI services set it). */
export function runningInCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === "true" || env.CI === "1";
}

/** The engine's takeover options: refused under `--detailed-exitcode` or CI unless `--takeover`. */
export function takeoverOptions(
  flags: TakeoverFlags,
  detailedExitcode = false,
): Pick<SafetyOptions, "refuseTakeover" | "takeover"> {
  return {
    ...(detailedExitcode || runningInCi() ? { refuseTakeover: true } : {}),
    ...(flags.takeover ? { takeover: true } : {}),
  };
}
