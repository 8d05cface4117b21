/**
 * `tgw apply [PLANFILE]`: make live state equal the configuration (docs/plan.md).
 *
 * - Without PLANFILE: refresh and plan (the plan is printed), ask for confirmation on a terminal
 *   (`--auto-approve` for CI; without a terminal and without it, apply refuses), then apply.
 * - With PLANFILE (from `tgw plan --out`): apply exactly that plan, without asking, after checking that
 *   the state, the live state and the configuration are still what it was made against.
 * - The state lock is held for the whole run; a second apply waits up to `--lock-timeout`, then fails
 *   naming the holder. One progress line per call; calls run `--parallelism` at a time.
 * - API key tokens go to their token files (mode 0600) only; `--json --show-tokens` also prints them.
 * - Ctrl-C: calls in flight finish and are recorded, nothing new starts; a second Ctrl-C exits at once.
 *
 * The run itself, shared with `destroy`, is in src/cli/apply-run.ts.
 */

import { UsageError } from "../../errors.js";
import { type ApplyFlags, runApply, withApplyOptions } from "../apply-run.js";
import type { RegisterCommand } from "../command.js";
import { withReplace } from "../options.js";
import { helpExamples } from "../output.js";
import { checkRefreshOnlyFlags, runRefreshOnly } from "../refresh-only.js";

/** Registers `tgw apply`. */
export const registerApply: RegisterCommand = (program) => {
  withReplace(
    withApplyOptions(
      program
        .command("apply")
        .description("make live state equal the configuration (or apply a plan saved by tgw plan --out)")
        .addHelpText(
          "after",
          helpExamples(
            "tgw apply -f infra/",
            "tgw apply -f infra/ --auto-approve --max-deletes 5   # CI",
            "tgw apply tgw.plan                                  # exactly what was reviewed",
            "tgw apply -f infra/ --replace api_keys.ci          # rotate a key (new token)",
            "tgw apply -f infra/ --refresh-only                 # record what changed outside tgw, change nothing",
          ),
        )
        .argument("[planfile]", "a plan saved by tgw plan --out: apply exactly it"),
    ),
  )
    .option(
      "--show-tokens",
      "with --json, include the tokens of API keys created (they are always written to their token files)",
    )
    .option(
      "--refresh-only",
      "only bring the state up to date with the live objects (records of objects deleted or found outside tgw); no object is changed",
    )
    .action(async (planfile: string | undefined, opts: ApplyFlags & { refreshOnly?: boolean }) => {
      if (opts.refreshOnly) {
        if (planfile) throw new UsageError("--refresh-only cannot be combined with a saved plan");
        checkRefreshOnlyFlags({ replace: opts.replace });
        await runRefreshOnly(opts, { apply: true });
        return;
      }
      await runApply(opts, { destroy: false, ...(planfile ? { planfile } : {}) });
    });
};
