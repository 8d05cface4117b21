/**
 * Terminal output shared by every command: colours (off with NO_COLOR or when not a TTY) and the
 * one place that turns an error into a message and an exit code.
 */
import { createColors } from "picocolors";
import { ExitCode, TgwError } from "../errors.js";
import { renderErrorMarkdown } from "./render/error-markdown.js";

/**
 * False when colours are refused: `NO_COLOR` set, or `--no-color` (`-no-color`, as Terraform spells
 * it: src/cli/single-dash.ts) among the arguments (read here, at load, because the colour functions
 * below are made before commander parses the arguments).
 */
const colorsAllowed =
  !("NO_COLOR" in process.env) && !process.argv.slice(2).some((a) => a === "--no-color" || a === "-no-color");
/** Colours for stdout; disabled by `NO_COLOR` or `--no-color`, and when stdout is not a terminal. */
export const color = createColors(Boolean(process.stdout.isTTY) && colorsAllowed);
/** Colours for stderr; same rules as `color`, judged on stderr. */
export const colorErr = createColors(Boolean(process.stderr.isTTY) && colorsAllowed);

/**
 * Prints an error to stderr and returns the exit code for it. A `TgwError` prints as
 * `Error [code]: message` (its own `format()` if it has one, e.g. positioned config errors);
 * anything else is an internal error: a bug, with the stack trace shown under `--debug`.
 * With `json` (the command was given `--json` or `--format json`), stdout also gets one JSON document
 * `{"format_version": 1, "error": {"code", "message", "problems"?}}` (docs/plan.md > JSON output):
 * a script reading stdout gets a document whether the command succeeded or not. With `markdown`
 * (`--format markdown`), stdout gets the error's Markdown document (./render/error-markdown.ts), for
 * the pull request comment CI posts (docs/ci.md). Commander's own errors (unknown option...) get
 * neither: commander printed them already.
 */
export function reportError(err: unknown, opts: ErrorOutput & { debug: boolean }): number {
  const c = colorErr;
  if (!isCommanderError(err)) {
    if (opts.json && !jsonWritten) process.stdout.write(`${JSON.stringify(errorDocument(err), null, 2)}\n`);
    else if (opts.markdown) process.stdout.write(renderErrorMarkdown(err, opts.command ?? "tgw"));
  }
  if (err instanceof TgwError) {
    const formatted = (err as { format?: () => string }).format?.() ?? err.message;
    process.stderr.write(`${c.red(c.bold("Error"))} ${c.dim(`[${err.code}]`)}: ${formatted}\n`);
    if (opts.debug && err.stack) process.stderr.write(`${c.dim(err.stack)}\n`);
    return err.exitCode;
  }
  if (isCommanderError(err)) {
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

/** Which document of a failure stdout gets besides the error on stderr (see `reportError`). */
export interface ErrorOutput {
  /** `--json` or `--format json`: a JSON document. */
  json?: boolean;
  /** `--format markdown`: a Markdown document. */
  markdown?: boolean;
  /** The command run, e.g. `tgw plan`, for the Markdown document's title. */
  command?: string;
}

/**
 * The documents a failure of the command `command` writes to stdout, from its words (after `tgw`,
 * long options with two dashes): `--json`, `--format json` / `--format=json`, `--format markdown`.
 * Words after `--` are arguments, not options.
 */
export function errorFormat(args: readonly string[], command: string): ErrorOutput {
  const end = args.indexOf("--");
  const words = end < 0 ? args : args.slice(0, end);
  let format: string | undefined;
  words.forEach((w, i) => {
    if (w === "--format") format = words[i + 1];
    else if (w.startsWith("--format=")) format = w.slice("--format=".length);
  });
  return {
    ...(words.includes("--json") || format === "json" ? { json: true } : {}),
    ...(format === "markdown" ? { markdown: true } : {}),
    command,
  };
}

let jsonWritten = false;

/**
 * Says that the command printed its own JSON document about its failure (`apply --json` with its
 * outcomes, `validate --json` with its problems): `reportError` then prints no second one.
 */
export function jsonDocumentWritten(): void {
  jsonWritten = true;
}

function isCommanderError(err: unknown): boolean {
  return Boolean(
    err && typeof err === "object" && "code" in err && String(err.code).startsWith("commander."),
  );
}

/** The JSON document of a failed `--json` command (see `reportError`). */
function errorDocument(err: unknown): { format_version: 1; error: Record<string, unknown> } {
  if (err instanceof TgwError) {
    const problems = (err as { problems?: unknown }).problems;
    return {
      format_version: 1,
      error: { code: err.code, message: err.message, ...(Array.isArray(problems) ? { problems } : {}) },
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { format_version: 1, error: { code: "internal", message } };
}

/**
 * The `Examples:` block of a command's `--help`: one `$ tgw ...` line per example, an optional
 * `# comment` after it.
 */
export function helpExamples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}`;
}

/** Prints `Warning: message` on stderr (yellow on a terminal), after any buffered output. */
export function warn(message: string): void {
  flushBufferedOutput();
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
  if (!debugOn) return;
  flushBufferedOutput();
  process.stderr.write(`${colorErr.dim(`debug: ${message}`)}\n`);
}

/** The output a `LineOutput` has not written yet is written at the latest this long after it came (ms). */
export const BUFFERED_OUTPUT_MS = 100;
/** ... or once it reaches this many characters. */
const BUFFERED_OUTPUT_CHARS = 64 * 1024;

/** Every `LineOutput` holding text, flushed before anything else is written to stderr. */
const buffered = new Set<LineOutput>();

/**
 * Writes what every `LineOutput` holds, so that a line written now (a warning on stderr) comes after
 * the lines written before it, as it would without buffering (`tgw apply > log 2>&1`).
 */
export function flushBufferedOutput(): void {
  for (const out of [...buffered]) out.flush();
}

/**
 * Output of many short lines (apply progress) to `stream`: written at once on a terminal; otherwise
 * (a pipe, a file: CI logs) gathered and written in one piece at most `BUFFERED_OUTPUT_MS` later, or
 * sooner when large, so 20,000 progress lines cost a few hundred writes, not 20,000. The text and its
 * order are the same either way. `flush()` before writing to `stream` by other means; `warn` and
 * `debugLog` flush first, and so does the process's exit.
 */
export class LineOutput {
  readonly #stream: NodeJS.WritableStream;
  readonly #direct: boolean;
  #parts: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;

  /** @param opts.buffer buffer even on a terminal (tests); default: only when `stream` is not a TTY. */
  constructor(stream: NodeJS.WritableStream & { isTTY?: boolean }, opts: { buffer?: boolean } = {}) {
    this.#stream = stream;
    this.#direct = !(opts.buffer ?? !stream.isTTY);
  }

  /** Writes `text` (whole lines), now on a terminal, else within `BUFFERED_OUTPUT_MS`. */
  write(text: string): void {
    if (this.#direct) {
      this.#stream.write(text);
      return;
    }
    this.#parts.push(text);
    this.#chars += text.length;
    if (this.#chars >= BUFFERED_OUTPUT_CHARS) {
      this.flush();
      return;
    }
    if (this.#timer === undefined) {
      if (buffered.size === 0) process.once("exit", flushBufferedOutput);
      buffered.add(this);
      this.#timer = setTimeout(() => this.flush(), BUFFERED_OUTPUT_MS);
    }
  }

  /** Writes everything held, in one `write`. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    buffered.delete(this);
    if (buffered.size === 0) process.off("exit", flushBufferedOutput);
    if (this.#parts.length === 0) return;
    const text = this.#parts.join("");
    this.#parts = [];
    this.#chars = 0;
    this.#stream.write(text);
  }
}
