/**
 * The CLI-side error catalogue: every error the reconciler raises on purpose is a `TgwError` with a
 * stable `code` and the process exit code the CLI uses for it. Anything else reaching the CLI is a
 * bug (`InternalError`), shown with a stack trace only under `--debug`.
 *
 * Exit codes (also in `tgw --help` and README.md):
 * - 0 success (with `--detailed-exitcode`: no changes)
 * - 1 error: invalid configuration, API error, unsafe plan, lock timeout...
 * - 2 with `--detailed-exitcode`: success and the plan has changes
 * - 129, 130, 143 stopped by SIGHUP, SIGINT (Ctrl-C), SIGTERM (128 + the signal's number): before
 *   anything was applied, or mid-apply (`apply`, `destroy`, `apply --refresh-only`: nothing new
 *   started, the calls in flight finished and were recorded, token files written). A second signal
 *   exits at once with its own code, once the results already received are written.
 */

/** Exit code of the process, by meaning. */
export const ExitCode = {
  ok: 0,
  error: 1,
  changes: 2,
  /** SIGHUP (the terminal or SSH session went away). */
  hangup: 129,
  /** SIGINT (Ctrl-C). */
  interrupted: 130,
  /** SIGTERM (a cancelled CI job, `timeout`, systemd, Kubernetes). */
  terminated: 143,
} as const;

/** The signals that stop a run gracefully, each with the exit code it ends the run with. */
export const STOP_SIGNALS = {
  SIGHUP: ExitCode.hangup,
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
} as const;

/** SIGHUP, SIGINT or SIGTERM. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/** Marks a TgwError of any copy of this module (see `Symbol.hasInstance` below). */
const TGW_ERROR = Symbol.for("tunnelgw.error");

/** Base of every deliberate error. `code` is stable (for `--json` output and tests). */
export class TgwError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(code: string, message: string, options?: { exitCode?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options?.exitCode ?? ExitCode.error;
    Object.defineProperty(this, TGW_ERROR, { value: true });
  }
}

// `x instanceof TgwError` holds for a TgwError of another copy of this module too: the reference server
// is a bundle of its own beside the CLI's (scripts/bundle.ts), and the errors it throws at start-up (a
// bad fixtures file, a wrong data key) are still deliberate errors to the CLI. Subclasses keep the
// ordinary check (the function is inherited: `this` is the class on the right of `instanceof`).
Object.defineProperty(TgwError, Symbol.hasInstance, {
  value(this: new (...args: never[]) => unknown, value: unknown): boolean {
    if (this !== TgwError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return (
      typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TGW_ERROR] === true
    );
  },
});

/** The user asked for something that cannot be done as asked (bad flag combination, unknown address...). */
export class UsageError extends TgwError {
  constructor(message: string) {
    super("usage", message);
  }
}
