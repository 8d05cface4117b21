/**
 * What every Markdown document of tgw shares (`plan --format markdown`, ./markdown.ts, and its error
 * document, ./error-markdown.ts): the size a pull request comment may have, and text made safe for it.
 * Imports nothing, so the error document costs a run nothing to load.
 */

/** The longest comment GitHub accepts (characters). */
export const COMMENT_LIMIT = 65_536;

/** The longest run of backticks in `text` (0 when none). */
export function longestRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
}

/** `text` as inline code, its delimiters longer than any run of backticks inside. */
export function code(text: string): string {
  const ticks = "`".repeat(longestRun(text) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** `text` with `&`, `<` and `>` as HTML entities. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * `text` as Markdown showing it as written: HTML entities for `&`, `<` and `>`, a backslash before
 * the characters that would emphasise, link, quote or make a table cell (`` \ ` * [ ] | ~ ``), and
 * before `_` except inside a word (`owner_id` stays as it is: no host emphasises there).
 */
export function escapeMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/[\\`*[\]|~]/g, (c) => `\\${c}`)
    .replace(/_/g, (c, at: number, all: string) =>
      /\w/.test(all[at - 1] ?? "") && /\w/.test(all[at + 1] ?? "") ? c : `\\${c}`,
    );
}
