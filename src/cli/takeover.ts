/**
 * `--takeover` (plan, apply, destroy): objects of the stack whose ownership markers carry claims the
 * state has not seen (another workspace's state, a lost state, or a state put back behind its
 * objects) refuse the plan unless `--takeover` is given (docs/state.md > Claims).
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
    "take over objects whose ownership markers this state has not seen (a lost state, another workspace's, or a state put back)",
  );
}

/** The engine's takeover option. */
export function takeoverOptions(flags: TakeoverFlags): Pick<SafetyOptions, "takeover"> {
  return flags.takeover ? { takeover: true } : {};
}
