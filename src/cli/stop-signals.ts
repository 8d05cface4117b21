/**
 * SIGINT (Ctrl-C), SIGTERM (a cancelled CI job, `timeout`, systemd, Kubernetes) and SIGHUP (a closed
 * terminal or SSH session) stop a run that changes things (`apply`, `destroy`, `apply --refresh-only`)
 * alike (issue 43 §7):
 *
 * - the first aborts the run with an `InterruptedError` naming the signal: nothing new starts, the calls
 *   in flight finish and are recorded (token files written), the summary says what was done and what
 *   was not started, and the process exits 128 + the signal's number (130, 143, 129; src/errors.ts);
 * - a second one, of any of the three, exits at once with its own code, once the results already
 *   received are written to the state (the run's `settle`); the calls still in flight are left to the
 *   ownership markers. Signals after it change nothing.
 */
import { STOP_SIGNALS, type StopSignal, TgwError } from "../errors.js";
import { colorErr, flushBufferedOutput } from "./output.js";

/** The interruption of a run before anything was applied (exit code 128 + the signal's number). */
export class InterruptedError extends TgwError {
  readonly signal: StopSignal;
  constructor(signal: StopSignal = "SIGINT") {
    const what = signal === "SIGINT" ? "interrupted" : `stopped by ${signal}`;
    super("interrupted", `${what} before anything was applied`, {
      exitCode: STOP_SIGNALS[signal],
    });
    this.signal = signal;
  }
}

/** `Interrupted` for Ctrl-C, else `Stopped by SIGTERM` (or SIGHUP): the first words of a notice. */
export function stoppedBy(signal: StopSignal): string {
  return signal === "SIGINT" ? "Interrupted" : `Stopped by ${signal}`;
}

/** What a run does on the stop signals. */
export interface StopHandling {
  /** The line printed on stderr at the first signal. */
  notice(signal: StopSignal): string;
  /** Resolves once the results received are in the state; awaited before a second signal exits. */
  settle(): Promise<void>;
}

/**
 * Handles the stop signals until the returned function is called: the first aborts `controller` with
 * an `InterruptedError`, a second exits once `settle()` resolves (see above).
 */
export function onStopSignals(controller: AbortController, handling: StopHandling): () => void {
  let exiting = false;
  const handler = (name: NodeJS.Signals) => {
    const signal = name as StopSignal;
    if (exiting) return;
    flushBufferedOutput();
    if (!controller.signal.aborted) {
      process.stderr.write(colorErr.yellow(handling.notice(signal)));
      controller.abort(new InterruptedError(signal));
      return;
    }
    exiting = true;
    process.stderr.write(
      colorErr.yellow(`\n${signal} again: exiting once the answers received are recorded.\n`),
    );
    void handling.settle().finally(() => process.exit(STOP_SIGNALS[signal]));
  };
  const names = Object.keys(STOP_SIGNALS) as StopSignal[];
  for (const name of names) process.on(name, handler);
  return () => {
    for (const name of names) process.off(name, handler);
  };
}
