/**
 * `tgw validate [-f FILE|DIR]... [--json]`: loads and checks the configuration without calling the API
 * (issue 4). Valid: exit 0 and one line, `valid: N resources, M modules in K files`. Invalid: the
 * ConfigError is thrown, so main.ts prints every problem as `file:line:col: path: message` and exits 1.
 *
 * `--json` prints one JSON object on stdout (docs/configuration.md > Validating):
 * `{"valid": true, "stack", "ownership", "resources": N, "modules": M, "files": [...], "addresses": [...]}`
 * or `{"valid": false, "problems": [{"file", "line", "col", "path", "message"}]}` (stderr still gets
 * the problem lines, and the exit code is 1).
 */

import { displayPath } from "../../config/files.js";
import { ConfigError, loadConfig } from "../../config/index.js";
import type { RegisterCommand } from "../command.js";
import { color, helpExamples, jsonDocumentWritten } from "../output.js";

interface ValidateOptions {
  file: string[];
  json?: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Registers `tgw validate`. */
export const registerValidate: RegisterCommand = (program) => {
  program
    .command("validate")
    .description(
      "check the configuration without calling the API; prints every problem with its file:line:col",
    )
    .addHelpText(
      "after",
      helpExamples(
        "tgw validate -f infra/",
        "tgw validate -f infra/base.yaml -f infra/prod.yaml",
        "tgw validate -f infra/ --json   # for machines",
      ),
    )
    .option(
      "-f, --file <path>",
      "configuration file, or directory of *.yaml / *.yml files (repeatable; default: the current directory)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--json", "print the result as one JSON object on stdout")
    .action(async (opts: ValidateOptions) => {
      let loaded: Awaited<ReturnType<typeof loadConfig>>;
      try {
        loaded = await loadConfig(opts.file);
      } catch (err) {
        if (opts.json && err instanceof ConfigError) {
          process.stdout.write(`${JSON.stringify({ valid: false, problems: err.problems }, null, 2)}\n`);
          jsonDocumentWritten();
        }
        throw err;
      }
      const { desired, configFiles } = loaded;
      const modules = desired.resources.filter((r) => r.pathParams !== undefined).length;
      const resources = desired.resources.length - modules;
      if (opts.json) {
        const summary = {
          valid: true,
          stack: desired.stack,
          ownership: desired.ownership,
          resources,
          modules,
          files: configFiles.map((f) => displayPath(process.cwd(), f)),
          addresses: desired.resources.map((r) => r.address),
        };
        process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `${color.green("valid")}: ${plural(resources, "resource")}, ${plural(modules, "module")} in ${plural(configFiles.length, "file")}\n`,
      );
    });
};
