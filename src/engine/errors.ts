/**
 * The engine's error catalogue. Every error is a `TgwError` (../errors.ts) with a stable code, so
 * `--json` output and tests can rely on it; all exit with code 1. The CLI alone prints them.
 *
 * | code               | when                                                                  |
 * |--------------------|-----------------------------------------------------------------------|
 * | `shared_record`    | two state records hold one object                                     |
 * | `unsafe_plan`      | a safety rule refuses the plan (./safety.ts)                           |
 * | `stale_plan`       | a saved plan no longer matches the state, live state or configuration |
 * | `apply_failed`     | a change failed during apply (what was done and not done is attached)  |
 * | `import`           | `tgw import` cannot adopt the object as asked                         |
 * | `not_confirmed`    | the user did not answer `yes`, or no terminal to ask on               |
 * | `unknown_parent`   | a module's edge or route does not exist (a mistyped id)               |
 * | `api_mismatch`     | the state belongs to another API than the one this run uses           |
 */
import { ExitCode, TgwError } from "../errors.js";
import type { StateApi } from "../state/store.js";
import type { Change } from "./action.js";

/**
 * Two state records hold one object (a merged or hand-edited state): the state decides every
 * object's address, so it must name one (docs/state.md > Identity). Nothing is planned.
 */
export class SharedRecordError extends TgwError {
  readonly shared: { id: string; addresses: string[] }[];
  constructor(shared: { id: string; addresses: string[] }[]) {
    const lines = shared.map((s) => `${s.addresses.join(" and ")} record one object (${s.id})`);
    const forget = shared.map((s) => s.addresses.slice(1).join(" ")).join(" ");
    super(
      "shared_record",
      `${lines.join("; ")}: the state must give each object one address. Nothing was changed. Keep the address you want and forget the others with tgw state rm ${forget} (it deletes nothing).`,
    );
    this.shared = shared;
  }
}

/** One reason a plan is refused by the safety checks (./safety.ts). */
export interface UnsafeReason {
  /** `prevent_destroy`, `max_deletes`, `empty_desired_state`, `foreign_lineage` or `other_driver`. */
  rule: string;
  message: string;
  addresses?: string[];
}

/** The plan is refused by a safety rule; every reason is listed. */
export class UnsafePlanError extends TgwError {
  readonly reasons: UnsafeReason[];
  constructor(reasons: UnsafeReason[]) {
    super("unsafe_plan", `the plan is refused: ${reasons.map((r) => r.message).join("; ")}`);
    this.reasons = reasons;
  }
}

/**
 * A `moved:` entry whose old and new addresses both have an object in the state: the old object of the
 * new address (removed from the configuration in the same change) would be kept and the renamed
 * object deleted. Refused until one of them is gone (docs/configuration.md > moved).
 */
export class MoveConflictError extends TgwError {
  /** `movedFrom`: `to` is taken by another entry of this configuration moving that address onto it. */
  constructor(
    from: { address: string; id: string },
    to: { address: string; id: string },
    movedFrom?: string,
  ) {
    super(
      "moved_conflict",
      movedFrom !== undefined
        ? `moved: ${movedFrom} -> ${to.address} and ${from.address} -> ${to.address} both move an object of the state onto ${to.address} (${to.id} and ${from.id}). Nothing was changed. Remove the moved: entry that no longer applies.`
        : `moved: ${from.address} -> ${to.address}: both addresses have an object in the state (${from.id} and ${to.id}), so the move would keep ${to.id} as ${to.address} and delete ${from.id}. Nothing was changed. Apply the removal of the old ${to.address} first (without the move), or forget it with tgw state rm ${to.address}, then apply the move.`,
    );
  }
}

/** A saved plan no longer describes what apply would do. */
export class StalePlanError extends TgwError {
  constructor(what: string) {
    super("stale_plan", `the saved plan is stale: ${what}. Run tgw plan again.`);
  }
}

/** `tgw import` cannot adopt the object. */
export class ImportError extends TgwError {
  constructor(message: string) {
    super("import", message);
  }
}

/** Apply was not confirmed. */
export class NotConfirmedError extends TgwError {
  constructor(message: string) {
    super("not_confirmed", message);
  }
}

/**
 * A create whose outcome the API left unknown (5xx, connection lost) that tgw then looked for by its
 * ownership marker and did not find: it was not created, and the next apply creates it.
 */
export class CreateFailedError extends TgwError {
  constructor(cause: unknown) {
    const text = describeError(cause);
    const cut = text.indexOf("; the resource may or may not have been created");
    super(
      "api",
      `${cut >= 0 ? text.slice(0, cut) : text}; not created (no object with its ownership marker exists)`,
      { cause },
    );
  }
}

/** What happened to one change during apply. */
export interface ChangeOutcome {
  change: Change;
  /** `done`: every call succeeded; `failed`: a call failed; `partial`: the first half of a replace ran. */
  status: "done" | "failed" | "partial" | "not-started";
  /** Id of the object after the change (a create's new id). */
  id?: string;
  error?: Error;
}

/**
 * A change failed. The message names each failure (with the API's code and message) and counts what
 * was done and what was not started; `outcomes` has every change's status. The state already
 * records everything that succeeded.
 */
export class ApplyFailedError extends TgwError {
  readonly outcomes: ChangeOutcome[];
  /**
   * Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) rather than by a failed change: the CLI exits with
   * the abort reason's exit code (a `TgwError`'s), else 130.
   */
  readonly interrupted: boolean;
  /** `cause`: the abort reason when the apply was interrupted. */
  constructor(outcomes: ChangeOutcome[], interrupted = false, cause?: unknown) {
    const failed = outcomes.filter((o) => o.status === "failed" || o.status === "partial");
    const done = outcomes.filter((o) => o.status === "done");
    const notStarted = outcomes.filter((o) => o.status === "not-started");
    const lines = failed.slice(0, LISTED).map((o) => `  ${o.change.address}: ${describeError(o.error)}`);
    if (failed.length > LISTED) lines.push(`  ... and ${failed.length - LISTED} more`);
    const head = interrupted
      ? "apply interrupted"
      : `apply failed: ${failed.length} change${failed.length === 1 ? "" : "s"} failed`;
    // Interrupted (Ctrl-C): also name what was done, as the progress lines may have scrolled away.
    const doneLine = interrupted && done.length > 0 ? `Done: ${addressList(done)}.\n` : "";
    const tail = `${doneLine}${done.length} done, ${notStarted.length} not started${
      notStarted.length > 0 ? ` (${addressList(notStarted)})` : ""
    }. The state records what was done; run apply again to continue.`;
    super("apply_failed", `${head}\n${lines.join("\n")}${lines.length ? "\n" : ""}${tail}`, {
      ...(cause === undefined ? {} : { cause }),
      // The abort reason says which signal (the CLI's InterruptedError: 129, 130 or 143).
      ...(interrupted ? { exitCode: cause instanceof TgwError ? cause.exitCode : ExitCode.interrupted } : {}),
    });
    this.outcomes = outcomes;
    this.interrupted = interrupted;
  }
}

/** How many addresses an apply's error names before it counts the rest (a terminal screen, not 300). */
const LISTED = 10;

function addressList(outcomes: ChangeOutcome[]): string {
  const names = outcomes.slice(0, LISTED).map((o) => o.change.address);
  const rest = outcomes.length - names.length;
  return `${names.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`;
}

/** One line for an error: an API error's `format()` (method, path, status, code, message), else its message. */
export function describeError(err: unknown): string {
  if (err && typeof err === "object" && "format" in err && typeof err.format === "function") {
    return String((err as { format(): string }).format());
  }
  return err instanceof Error ? err.message : String(err);
}

/** The state records another API than the one of this run (./state-api.ts). */
export class ApiMismatchError extends TgwError {
  readonly recorded: StateApi;
  readonly current: StateApi;
  constructor(location: string, recorded: StateApi, current: StateApi, describe: (api: StateApi) => string) {
    const fix =
      recorded.url === "embedded"
        ? "unset TGW_API_URL to use the embedded server"
        : `set TGW_API_URL=${recorded.url} and TGW_API_KEY`;
    const why = current.url === "embedded" ? " (TGW_API_URL is not set)" : "";
    super(
      "api_mismatch",
      `the state ${location} belongs to ${describe(recorded)}, but this run uses ${describe(current)}${why}. Nothing was changed. To use the state's API, ${fix}; to move the stack to this API on purpose, pass --allow-api-change.`,
    );
    this.recorded = recorded;
    this.current = current;
  }
}

/** Modules of the configuration whose edge or route does not exist (./parents.ts). */
export class UnknownParentError extends TgwError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      "unknown_parent",
      problems.length === 1 ? (problems[0] as string) : `\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
    this.problems = problems;
  }
}
