/**
 * The one error of the config layer: `ConfigError` carries every problem found in the configuration,
 * each positioned at a file, line and column with the field path it concerns. Loading collects
 * problems in a `ProblemList` (src/model/validation/problems.ts) through every stage and throws once at
 * the end, so a user sees all mistakes at once (issue 4).
 */
import { TgwError } from "../errors.js";
import { type ConfigProblem, compareProblems, formatProblem } from "../model/validation/problems.js";

/**
 * The configuration is invalid. Code `config`, exit code 1. `problems` holds every problem found,
 * sorted by position; nothing was applied.
 */
export class ConfigError extends TgwError {
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    const sorted = [...problems].sort(compareProblems);
    const n = sorted.length;
    super("config", `${n} ${n === 1 ? "problem" : "problems"} in the configuration`);
    this.problems = sorted;
  }

  /**
   * A header line (`2 problems in the configuration:`) then one `file:line:col: path: message` per
   * problem, so that under the CLI's `Error [config]: ` prefix every problem sits on a line of its own
   * that editors and CI annotations can match.
   */
  format(): string {
    return [`${this.message}:`, ...this.problems.map(formatProblem)].join("\n");
  }
}
