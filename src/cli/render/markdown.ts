/**
 * The Markdown rendering of a plan (`tgw plan --format markdown`), for a pull request or merge request
 * comment: a title, a summary table, warnings (partial plan, drift), then one collapsible `<details>`
 * block per change holding the same lines as the human plan (secrets masked the same way), in a
 * `diff` code block so that hosts colour `+` and `-`.
 *
 * The result fits a comment: GitHub refuses a comment over 65,536 characters, so blocks that would not
 * fit are left out and a note says how many and where to see the whole plan.
 */
import { createColors } from "picocolors";
import { type Plan, summarize } from "../../engine/action.js";
import { COMMENT_LIMIT, escapeHtml, longestRun } from "./comment.js";
import { partialWarning, renderChange, unchangedLine } from "./human.js";

export { COMMENT_LIMIT };

const plain = createColors(false);

/** Renders `plan` as Markdown of at most `limit` characters (default `COMMENT_LIMIT`). */
export function renderPlanMarkdown(plan: Plan, limit = COMMENT_LIMIT): string {
  const s = summarize(plan.changes);
  const acting = plan.changes.filter((c) => c.action !== "no-op");
  const head: string[] = [`### tgw plan: stack \`${plan.stack}\`${plan.destroy ? " (destroy)" : ""}`, ""];
  if (plan.partial) head.push(quote(partialWarning(plan.partial, plain)), "");
  const drifted = plan.changes.filter((c) => c.drift);
  if (drifted.length > 0) {
    head.push(
      `**Drift** (changed outside tgw since the last apply): ${drifted.map((c) => `\`${c.address}\``).join(", ")}`,
      "",
    );
  }
  if (acting.length === 0) return `${[...head, unchangedLine(plan)].join("\n")}\n`;
  const forget = s.forget ? [" forget |", "---:|", ` ${s.forget} |`] : ["", "", ""];
  head.push(
    `| create | update | replace | delete |${forget[0]}`,
    `|---:|---:|---:|---:|${forget[1]}`,
    `| ${s.create} | ${s.update} | ${s.replace} | ${s.delete} |${forget[2]}`,
    "",
  );
  let text = `${head.join("\n")}\n`;
  const blocks = acting.map(details);
  const note = (left: number) =>
    `\n**Truncated:** ${left} more change${left === 1 ? " is" : "s are"} not shown (a comment holds at most ${limit.toLocaleString("en-US")} characters). The job log has the whole plan; \`tgw plan\` shows it too.\n`;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as string;
    if (text.length + block.length + note(blocks.length - i).length > limit)
      return text + note(blocks.length - i);
    text += block;
  }
  return text;
}

/** One change as a collapsible block. */
function details(ch: Plan["changes"][number]): string {
  const [comment = "", header = "", ...fields] = renderChange(ch, plain);
  const body = [header.trim(), ...fields.map((l) => l.replace(/^ {6}/, ""))].join("\n");
  const fence = "`".repeat(Math.max(3, longestRun(body) + 1));
  const summary = escapeHtml(comment.replace(/^\s*# /, ""));
  return `<details><summary><code>${escapeHtml(header.trim().split(" ")[0] ?? "")}</code> ${summary}</summary>\n\n${fence}diff\n${body}\n${fence}\n\n</details>\n\n`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((l) => `> ${l.trim()}`)
    .join("\n");
}
