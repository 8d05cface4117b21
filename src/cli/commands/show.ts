/**
 * `tgw show PLANFILE`: a saved plan (`tgw plan --out FILE`) as `tgw plan` printed it, or with
 * `--json` its JSON plan (docs/plan.md > JSON output), as `terraform show [-json] PLANFILE`. Reads
 * nothing else: no configuration, state or API. The file holds no secret (docs/plan.md > Saved plans).
 */
import type { RegisterCommand } from "../command.js";
import { color, helpExamples } from "../output.js";
import { readPlanFile } from "../plan-file.js";
import { writePlan } from "../render/human.js";
import { planFromJson } from "../render/json.js";

/** Registers `tgw show`. */
export const registerShow: RegisterCommand = (program) => {
  program
    .command("show")
    .description("show a plan saved by tgw plan --out FILE (human, or --json)")
    .argument("<planfile>", "a file written by tgw plan --out")
    .addHelpText(
      "after",
      helpExamples("tgw plan --out tgw.plan && tgw show tgw.plan", "tgw show --json tgw.plan | jq .summary"),
    )
    .option("--json", "print the saved JSON plan (format in docs/plan.md)")
    .action(async (file: string, opts: { json?: boolean }) => {
      const saved = await readPlanFile(file);
      if (opts.json) process.stdout.write(`${JSON.stringify(saved.plan, null, 2)}\n`);
      else writePlan(planFromJson(saved.plan), color, (chunk) => process.stdout.write(chunk));
    });
};
