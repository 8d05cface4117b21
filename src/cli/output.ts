/**
 * Terminal output shared by every command: colours (off with NO_COLOR or when not a TTY) and the
 * one place that turns an error into a message and an exit code.
 */
import { createColors } from "picocolors";
import { ExitCode, TgwError } from "../errors.js";

/** Colours for stdout; disabled when `NO_COLOR` is set or stdout is not a terminal. */
export const color = createColors(Boolean(process.stdout.isTTY) && !("NO_COLOR" in process.env));
/** Colours for stderr; same rules as `color`, judged on stderr. */
export const colorErr = createColors(Boolean(process.stderr.isTTY) && !("NO_COLOR" in process.env));

/**
 * Prints an error to stderr and returns the exit code for it. A `TgwError` prints as
 * `Error [code]: message` (its own `format()` if it has one, e.g. positioned config errors);
 * anything else is an internal error: a bug, with the stack trace shown under `--debug`.
 */
export function reportError(err: unknown, opts: { debug: boolean }): number {
  const c = colorErr;
  if (err instanceof TgwError) {
    const formatted = (err as { format?: () => string }).format?.() ?? err.message;
    process.stderr.write(`${c.red(c.bold("Error"))} ${c.dim(`[${err.code}]`)}: ${formatted}\n`);
    if (opts.debug && err.stack) process.stderr.write(`${c.dim(err.stack)}\n`);
    return err.exitCode;
  }
  if (err && typeof err === "object" && "code" in err && String(err.code).startsWith("commander.")) {
    // commander already printed its message (unknown option, missing argument...).
    return (err as { exitCode?: number }).exitCode ?? ExitCode.error;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${c.red(c.bold("Internal error"))} (a bug in tgw, please report it): ${message}\n`);
  if (err instanceof Error && err.stack) {
    process.stderr.write(
      opts.debug ? `${c.dim(err.stack)}\n` : c.dim("Run again with --debug for the stack trace.\n"),
    );
  }
  return ExitCode.error;
}

/**
 * The `Examples:` block of a command's `--help`: one `$ tgw ...` line per example, an optional
 * `# comment` after it.
 */
export function helpExamples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}`;
}

/** Prints `Warning: message` on stderr (yellow on a terminal). */
export function warn(message: string): void {
  process.stderr.write(`${colorErr.yellow("Warning:")} ${message}\n`);
}

let debugOn = false;

/** Turns on debug logs (`--debug`); set once by the entry point before a command runs. */
export function setDebug(on: boolean): void {
  debugOn = on;
}

/** True under `--debug`. */
export function isDebug(): boolean {
  return debugOn;
}

/** Prints a debug line on stderr (only under `--debug`). Never pass a body, header or secret. */
export function debugLog(message: string): void {
  if (debugOn) process.stderr.write(`${colorErr.dim(`debug: ${message}`)}\n`);
}
