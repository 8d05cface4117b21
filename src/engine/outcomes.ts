/**
 * The record of an apply's progress: `step_started`, `step_done`, `step_failed` events as steps run,
 * one `change_applied` event when every step of a change is done, and at the end one `ChangeOutcome`
 * per change of the plan that calls the API.
 */
import { type Change, isChange } from "./action.js";
import type { ChangeOutcome } from "./errors.js";
import type { EventHandler, StepOp } from "./events.js";
import type { StepResult } from "./schedule.js";
import type { Step } from "./steps.js";

/** Follows the steps of one apply. */
export class ApplyProgress {
  readonly #emit: EventHandler;
  readonly #stepsOf = new Map<Change, Step[]>();
  readonly #results = new Map<string, StepResult>();
  readonly #stepStart = new Map<string, number>();
  readonly #changeStart = new Map<Change, number>();

  constructor(steps: readonly Step[], emit: EventHandler) {
    this.#emit = emit;
    for (const s of steps) {
      const own = this.#stepsOf.get(s.change);
      if (own) own.push(s);
      else this.#stepsOf.set(s.change, [s]);
    }
  }

  /** A step's call starts. */
  started(step: Step): void {
    const t0 = performance.now();
    this.#stepStart.set(step.key, t0);
    if (!this.#changeStart.has(step.change)) this.#changeStart.set(step.change, t0);
    const { address, action } = step.change;
    this.#emit({ type: "step_started", address, action, op: step.op });
  }

  /** A step's call ended (done or failed). */
  finished(step: Step, result: StepResult): void {
    this.#results.set(step.key, result);
    const t1 = performance.now();
    const durationMs = t1 - (this.#stepStart.get(step.key) ?? t1);
    if (result.status === "failed") {
      this.#emit({ type: "step_failed", ...base(step), error: result.error, durationMs });
      return;
    }
    if (result.status !== "done") return;
    // Built field by field, not spread: this runs for every step of an apply of thousands.
    const { address, action } = step.change;
    const { op } = step;
    this.#emit(
      result.id
        ? { type: "step_done", address, action, op, id: result.id, durationMs }
        : { type: "step_done", address, action, op, durationMs },
    );
    if (!this.#stepsOf.get(step.change)?.every((s) => this.#results.get(s.key)?.status === "done")) return;
    const id = this.#changeId(step.change);
    const changeMs = t1 - (this.#changeStart.get(step.change) ?? t1);
    // Two literals rather than a conditional spread: one per change of an apply of thousands.
    this.#emit(
      id
        ? { type: "change_applied", address, action, id, durationMs: changeMs }
        : { type: "change_applied", address, action, durationMs: changeMs },
    );
  }

  /**
   * The outcome of each change of `changes` that calls the API, in order, from the final step results
   * (`results` also holds the skipped steps).
   */
  outcomes(changes: readonly Change[], results: ReadonlyMap<string, StepResult>): ChangeOutcome[] {
    const outcomes: ChangeOutcome[] = [];
    for (const c of changes) {
      if (!isChange(c.action)) continue;
      const own = (this.#stepsOf.get(c) ?? []).map((s) => results.get(s.key));
      const failed = own.find((r) => r?.status === "failed");
      const status: ChangeOutcome["status"] = own.every((r) => r?.status === "done")
        ? "done"
        : failed
          ? "failed"
          : own.some((r) => r?.status === "done")
            ? "partial"
            : "not-started";
      const id = this.#changeId(c, results);
      const outcome: ChangeOutcome = { change: c, status };
      if (id) outcome.id = id;
      if (failed?.status === "failed") outcome.error = failed.error;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** A change's object id: its create's result, else the planned id. */
  #changeId(c: Change, results: ReadonlyMap<string, StepResult> = this.#results): string | undefined {
    const create = this.#stepsOf.get(c)?.find((s) => s.op === "create");
    if (!create) return c.id;
    const r = results.get(create.key);
    return r?.status === "done" ? r.id : undefined;
  }
}

function base(step: Step): { address: string; action: Change["action"]; op: StepOp } {
  return { address: step.change.address, action: step.change.action, op: step.op };
}
