/**
 * Apply progress for people: one line when a call starts and one when it ends, e.g.
 *
 * ```
 * api_keys.ci: creating...
 * api_keys.ci: created ak_123 (0.2s)
 * ssh_host_certificates.h: deleting shcrt_1 (replace)...
 * ```
 *
 * and a closing summary. Lines name addresses, ids and paths only: never a field value.
 */
import type { Colors } from "picocolors/types.js";
import type { ApplyResult } from "../../engine/apply.js";
import { describeError } from "../../engine/errors.js";
import type { EngineEvent, StepOp } from "../../engine/events.js";
import { describeLostToken } from "../../engine/tokens.js";
import { shownTokenFile } from "../../model/token-file.js";

const ING: Record<StepOp, string> = {
  create: "creating",
  update: "updating",
  put: "setting",
  delete: "deleting",
  forget: "forgetting (the object stays)",
};
const ED: Record<StepOp, string> = {
  create: "created",
  update: "updated",
  put: "set",
  delete: "deleted",
  forget: "no longer managed (the object stays)",
};

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** The line for one engine event, or undefined for events that print nothing. */
export function progressLine(event: EngineEvent, c: Colors): string | undefined {
  switch (event.type) {
    case "step_started": {
      const note = event.action === "replace" ? " (replace)" : "";
      return `${event.address}: ${ING[event.op]}${note}...`;
    }
    case "step_done": {
      const id = event.id && !event.id.startsWith("/") ? ` ${event.id}` : "";
      return `${event.address}: ${c.green(ED[event.op])}${id} ${c.dim(`(${seconds(event.durationMs)})`)}`;
    }
    case "step_failed":
      return `${event.address}: ${c.red(`${event.op} failed`)} ${c.dim(`(${seconds(event.durationMs)})`)}: ${describeError(event.error)}`;
    case "create_recovered":
      return `${event.address}: the API's answer to the create was lost; found the object ${event.id} by its ownership marker`;
    case "token_reissued":
      return `${event.address}: the answer to the create held the key's only token and was lost; the key ${event.id}, made by this apply and never delivered, was deleted, and is created again`;
    case "create_retrying":
      return `${event.address}: the create failed and no object carries its ownership marker; creating again (attempt ${event.attempt})`;
    case "lock_waiting":
      return c.dim(`Waiting for the state lock of ${event.location} (another tgw holds it)...`);
    case "token_set_aside": {
      const to = shownTokenFile(event.path, process.cwd());
      if (event.reason === "deleted")
        return `${event.address}: the key was deleted; its token file, holding its dead token, was moved to ${to}`;
      if (event.reason === "lock_lost")
        return `${event.address}: answered after the state lock was taken over; its token (the key's only copy) was written to ${to}, not over the token file the new holder owns`;
      if (event.reason === "occupied")
        return `${event.address}: its token file held the token of ${event.holder ?? "another key"}, which may still work: moved to ${to} before the new token was written`;
      return `${event.address}: the key lives on, no longer managed; its token file was moved to ${to}`;
    }
    case "token_moved":
      return `${event.address}: its token file was at ${shownTokenFile(event.from, process.cwd())}; moved to ${shownTokenFile(event.path, process.cwd())}`;
    case "token_saved":
      return `${event.address}: its token, left in a temporary file by a killed apply, was moved into its token file`;
    case "token_written":
      return `${event.address}: token written to ${shownTokenFile(event.path, process.cwd())} (mode 0600)`;
    case "token_delivered":
      return `${event.address}: token handed to the token command (TGW_TOKEN_COMMAND)`;
    default:
      return undefined;
  }
}

/**
 * `Apply complete: 1 created, 0 updated, 0 replaced, 1 deleted.` (`, 1 no longer managed` after a
 * `removed:` entry's forget), or for a destroy, as Terraform says
 * it, `Destroy complete: 2 deleted.`
 */
export function applySummary(result: ApplyResult, destroy = false): string {
  const n = { create: 0, update: 0, replace: 0, delete: 0, forget: 0 };
  for (const o of result.outcomes) {
    const a = o.change.action;
    if (a === "put") n[o.change.before ? "update" : "create"]++;
    else if (a !== "no-op") n[a]++;
  }
  if (destroy) return `Destroy complete: ${n.delete} deleted.`;
  const forgotten = n.forget > 0 ? `, ${n.forget} no longer managed` : "";
  return `Apply complete: ${n.create} created, ${n.update} updated, ${n.replace} replaced, ${n.delete} deleted${forgotten}.`;
}

/**
 * The closing warning for API keys whose token is lost (engine `token_lost` events, one per address),
 * with the command that issues a new key; empty when there is none.
 */
export function lostTokenWarning(
  lost: readonly { address: string; id: string; file: string }[],
  c: Colors,
): string {
  if (lost.length === 0) return "";
  const lines = lost.map((t) => {
    const [fact, advice] = describeLostToken(t);
    return `${c.yellow(c.bold("Warning:"))} ${fact}\n  ${advice}`;
  });
  return `${lines.join("\n")}\n`;
}

/**
 * Under `CI=true`, tokens written to files on the runner, which CI throws away with them: say where
 * tokens should go instead (the token command, docs/ci.md > Tokens). Empty otherwise.
 */
export function runnerTokenWarning(
  tokens: readonly { address: string; file?: string }[],
  c: Colors,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const written = tokens.filter((t) => t.file !== undefined);
  if (env.CI !== "true" || written.length === 0) return "";
  const names = written.map((t) => t.address).join(", ");
  return `${c.yellow(c.bold("Warning:"))} ${written.length === 1 ? "a new token was" : `${written.length} new tokens were`} written to files on this CI runner (${names}), which go with it: set TGW_TOKEN_COMMAND to hand tokens to a secret store (docs/ci.md > Tokens).\n`;
}

/** Applies smaller than this print no progress counters: their change lines are few enough. */
const COUNTED_FROM = 100;

/**
 * Counters of a large apply (issue 29 §2): after each tenth of its changes, one line with the count
 * done of the total, the failures and the rate, such as
 * `Progress: 2,000 of 10,000 changes (20 %), 0 failed, 412/s`, on a terminal as in a CI log.
 * Feed it every engine event; it returns the line to print, if any.
 */
export class ApplyCounter {
  #total = 0;
  #done = 0;
  #failed = 0;
  #tenths = 0;
  #since: number | undefined;

  /** The counter line this event completes, or undefined. */
  next(e: EngineEvent, now: number = performance.now()): string | undefined {
    if (e.type === "planned") this.#total = e.plan.changes.filter((c) => c.action !== "no-op").length;
    else if (e.type === "step_started") this.#since ??= now;
    else if (e.type === "change_applied") this.#done++;
    else if (e.type === "step_failed") this.#failed++;
    else return undefined;
    const count = this.#done + this.#failed;
    if (this.#total < COUNTED_FROM || count === 0) return undefined;
    const tenths = Math.floor((10 * count) / this.#total);
    if (tenths <= this.#tenths) return undefined;
    this.#tenths = tenths;
    const seconds = Math.max((now - (this.#since ?? now)) / 1000, 0.001);
    const n = (x: number) => x.toLocaleString("en-US");
    return `Progress: ${n(count)} of ${n(this.#total)} changes (${Math.round((100 * count) / this.#total)} %), ${n(this.#failed)} failed, ${n(Math.round(this.#done / seconds))}/s`;
  }
}
