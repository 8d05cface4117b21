/**
 * The Markdown document of a failed `--format markdown` command (`tgw plan --format markdown >
 * plan.md` in CI, docs/ci.md), so that the pull request comment says why there is no plan: a title
 * naming the command, the error as stderr has it (`Error [code]: message`), then, for an invalid
 * configuration, one line per problem (`file:line:col`, the field path, the message with its
 * "did you mean"), and never more than a comment holds.
 */
import type { ConfigProblem } from "../../model/validation/problems.js";
import { COMMENT_LIMIT, code, escapeMarkdown, longestRun } from "./comment.js";

/** What of an error the document shows (a `TgwError`, duck-typed: this module imports no error class). */
interface ShownError {
  code?: unknown;
  message?: unknown;
  problems?: unknown;
  format?: unknown;
}

/**
 * The Markdown document of `err`, thrown by `command` (e.g. `tgw plan`), of at most `limit`
 * characters (default `COMMENT_LIMIT`). `tgw` errors (with a string `code`) show as on stderr, their
 * `problems` as a list; anything else is an internal error.
 */
export function renderErrorMarkdown(err: unknown, command: string, limit = COMMENT_LIMIT): string {
  const e = (typeof err === "object" && err !== null ? err : {}) as ShownError;
  const head = [`### ${code(command)} failed`, ""];
  const problems: unknown[] = Array.isArray(e.problems) ? e.problems : [];
  // Positioned problems (a ConfigError's), or several: a list, under the message's first line.
  const listed = problems.length > 1 || problems.some((p) => typeof p === "object");
  if (typeof e.code !== "string") {
    const message = err instanceof Error ? err.message : String(err);
    head.push(...errorLines("**Internal error** (a bug in tgw, please report it)", message));
  } else if (listed) {
    const first = String(e.message).split("\n")[0] || `${problems.length} problems`;
    head.push(...errorLines(`**Error** ${code(`[${e.code}]`)}`, `${first}:`));
  } else {
    const text = typeof e.format === "function" ? e.format() : e.message;
    head.push(...errorLines(`**Error** ${code(`[${e.code}]`)}`, String(text)));
  }
  return withinLimit(`${head.join("\n")}\n`, listed ? problems.map(problemLine) : [], limit);
}

/** `label: first line`, then the message's other lines (if any) as a code block. */
function errorLines(label: string, message: string): string[] {
  const [first = "", ...rest] = message.split("\n");
  const lines = [`${label}: ${escapeMarkdown(first)}`, ""];
  if (rest.length === 0) return lines;
  const body = rest.join("\n");
  const fence = "`".repeat(Math.max(3, longestRun(body) + 1));
  return [...lines, `${fence}text`, body, fence, ""];
}

/** One problem as a list item: `file:line:col` `path`: message (a string problem as it is). */
function problemLine(problem: unknown): string {
  if (typeof problem !== "object" || problem === null) return `- ${escapeMarkdown(String(problem))}\n`;
  const p = problem as Partial<ConfigProblem>;
  const where = p.line ? `${p.file}:${p.line}:${p.col}` : String(p.file ?? "");
  const path = p.path ? ` ${code(p.path)}` : "";
  return `- ${where ? code(where) : ""}${path}: ${escapeMarkdown(String(p.message ?? ""))}\n`;
}

/** `head` then the `lines` that fit in `limit`, and a note of how many did not. */
function withinLimit(head: string, lines: readonly string[], limit: number): string {
  const note = (left: number) =>
    `\n**Truncated:** ${left} more problem${left === 1 ? " is" : "s are"} not shown (a comment holds at most ${limit.toLocaleString("en-US")} characters). The job log has them all; \`tgw validate\` lists them too.\n`;
  let text = head;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (text.length + line.length + note(lines.length - i).length > limit)
      return text + note(lines.length - i);
    text += line;
  }
  return text;
}
