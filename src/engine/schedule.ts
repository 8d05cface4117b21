/**
 * Runs the steps of an apply (./steps.ts) with bounded concurrency (p-limit: at most `parallelism`
 * steps in their API calls at once) in dependency order.
 * A step starts once all its dependencies are done; a step one of whose dependencies did not succeed
 * is skipped, and so is every step that would start after `halted()` says so. Calls in flight always
 * finish. The scheduler knows nothing of the API or the state: `run` does the work.
 */
import pLimit from "p-limit";
import type { Step } from "./steps.js";

/** What became of one step. */
export type StepResult =
  | { status: "done"; id?: string }
  | { status: "failed"; error: Error }
  | { status: "skipped" };

/** What the scheduler calls. */
export interface StepHooks {
  /**
   * Does the work of a step; resolves with the object's id, if any. `callsDone()` frees the step's
   * place among the `parallelism` calls in flight before it ends (its API calls are over; what is left
   * is local work, such as writing a token file), so the next step's call need not wait for it.
   */
  run(step: Step, callsDone: () => void): Promise<string | undefined>;
  /** Asked before each step starts: true once nothing new may start. */
  halted(step: Step): boolean;
  /** Called when a step starts, ends well or fails (not for skipped steps). */
  started?(step: Step): void;
  finished?(step: Step, result: StepResult): void;
}

/**
 * Runs `steps` (at most `parallelism` at once) and returns each step's result by key.
 * Never throws: a failure of `run` is the step's result.
 */
export async function runSteps(
  steps: readonly Step[],
  parallelism: number,
  hooks: StepHooks,
): Promise<Map<string, StepResult>> {
  const limit = pLimit(Math.max(1, parallelism));
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const results = new Map<string, StepResult>();
  const started = new Map<string, Promise<void>>();

  const execute = async (step: Step, callsDone: () => void): Promise<StepResult> => {
    if (hooks.halted(step)) return { status: "skipped" };
    hooks.started?.(step);
    let result: StepResult;
    try {
      const id = await hooks.run(step, callsDone);
      result = { status: "done", ...(id ? { id } : {}) };
    } catch (err) {
      result = { status: "failed", error: err instanceof Error ? err : new Error(String(err)) };
    }
    hooks.finished?.(step, result);
    return result;
  };

  // The slot is held until the step ends or says its calls are done, whichever comes first.
  const limited = (step: Step): Promise<StepResult> =>
    new Promise((resolve) => {
      void limit(
        () =>
          new Promise<void>((freeSlot) => {
            void execute(step, freeSlot).then((result) => {
              freeSlot();
              resolve(result);
            });
          }),
      );
    });

  const schedule = (step: Step): Promise<void> => {
    let p = started.get(step.key);
    if (p) return p;
    p = (async () => {
      await Promise.all(step.deps.map((d) => schedule(byKey.get(d) as Step)));
      const blocked = step.deps.some((d) => results.get(d)?.status !== "done");
      results.set(step.key, blocked ? { status: "skipped" } : await limited(step));
    })();
    started.set(step.key, p);
    return p;
  };
  await Promise.all(steps.map(schedule));
  return results;
}
