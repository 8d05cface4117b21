/** Plain-text tables for terminal output (`tgw endpoints`, `tgw state list`). */
import { color } from "../output.js";

/**
 * Renders rows under a bold header, columns left-aligned, padded to their widest cell and
 * separated by two spaces; the last column is not padded. Ends with a newline.
 */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[color.bold(line(header)), ...rows.map(line)].join("\n")}\n`;
}
