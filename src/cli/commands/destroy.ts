/**
 * `tgw destroy`: delete every object this stack owns (found through the state and the ownership
 * markers; modules only when the state says tgw set them), after showing the plan and asking for
 * confirmation (`--auto-approve` for CI). prevent_destroy and `--max-deletes` still apply.
 */

import { type ApplyFlags, runApply, withApplyOptions } from "../apply-run.js";
import type { RegisterCommand } from "../command.js";
import { helpExamples } from "../output.js";

/** Registers `tgw destroy`. */
export const registerDestroy: RegisterCommand = (program) => {
  withApplyOptions(
    program
      .command("destroy")
      .description(
        "delete every object this stack owns (the configuration still names the stack and prevent_destroy)",
      )
      .addHelpText("after", helpExamples("tgw destroy -f infra/", "tgw destroy -f infra/ --auto-approve")),
  ).action(async (opts: ApplyFlags) => {
    await runApply(opts, { destroy: true });
  });
};
