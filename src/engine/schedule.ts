/**
 * Runs the steps of an apply (./steps.ts) with bounded concurrency (at most `parallelism` steps in
 * their API calls at once) in dependency order.
 * A step starts once all its dependencies are done; a step one of whose dependencies did not succeed
 * is skipped, and so is every step that would start after `halted()` says so. Calls in flight always
 * finish. The scheduler knows nothing of the API or the state: `run` does the work.
 *
 * A ready queue and a count of each step's unfinished dependencies, rather than a promise chain per
 * step (the p-limit queue with a promise per dependency wait): an apply of thousands of steps spent a
 * measurable part of its CPU on those promises. Ready steps start in plan order.
 */
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
 * Never throws: a failure of `run` is the step's result; a dependency on a key that is not among
 * `steps` counts as not done (the step is skipped).
 */
export function runSteps(
  steps: readonly Step[],
  parallelism: number,
  hooks: StepHooks,
): Promise<Map<string, StepResult>> {
  return new Promise((resolve) => new StepRun(steps, Math.max(1, parallelism), hooks, resolve).start());
}

/** The state of one `runSteps`. */
class StepRun {
  readonly #results = new Map<string, StepResult>();
  /** Steps waiting for each key, and each step's unfinished dependencies (blocked: one failed). */
  readonly #dependents = new Map<string, Step[]>();
  readonly #waits = new Map<Step, { pending: number; blocked: boolean }>();
  readonly #ready: Step[] = [];
  #nextReady = 0;
  /** Steps holding one of the `parallelism` places. */
  #running = 0;
  #reported = false;

  constructor(
    readonly steps: readonly Step[],
    readonly parallelism: number,
    readonly hooks: StepHooks,
    readonly done: (results: Map<string, StepResult>) => void,
  ) {}

  start(): void {
    const keys = new Set(this.steps.map((s) => s.key));
    for (const step of this.steps) {
      const wait = { pending: 0, blocked: false };
      // buildSteps gives each dependency once; a Set only for steps made elsewhere with repeats.
      for (const d of step.deps.length > 1 ? new Set(step.deps) : step.deps) {
        if (!keys.has(d)) wait.blocked = true;
        else {
          wait.pending++;
          const waiting = this.#dependents.get(d);
          if (waiting) waiting.push(step);
          else this.#dependents.set(d, [step]);
        }
      }
      this.#waits.set(step, wait);
    }
    for (const step of this.steps)
      if ((this.#waits.get(step) as { pending: number }).pending === 0) this.#release(step);
    this.#pump();
  }

  /** A step's dependencies have all ended: it is ready, or skipped when one did not succeed. */
  #release(step: Step): void {
    if ((this.#waits.get(step) as { blocked: boolean }).blocked) this.#end(step, { status: "skipped" });
    else this.#ready.push(step);
  }

  #end(step: Step, result: StepResult): void {
    this.#results.set(step.key, result);
    for (const dependent of this.#dependents.get(step.key) ?? []) {
      const wait = this.#waits.get(dependent) as { pending: number; blocked: boolean };
      if (result.status !== "done") wait.blocked = true;
      if (--wait.pending === 0) this.#release(dependent);
    }
  }

  /** Starts ready steps while there is a free place. */
  #pump(): void {
    while (this.#running < this.parallelism && this.#nextReady < this.#ready.length) {
      const step = this.#ready[this.#nextReady++] as Step;
      if (this.hooks.halted(step)) {
        this.#end(step, { status: "skipped" });
        continue;
      }
      this.#running++;
      this.#execute(step);
    }
    // Keeps the queue short: what was started is not needed any more.
    if (this.#nextReady === this.#ready.length) {
      this.#ready.length = 0;
      this.#nextReady = 0;
    }
    // Steps skipped here (halted) may have been the last ones.
    this.#checkDone();
  }

  #execute(step: Step): void {
    // The place is held until the step ends or says its calls are done, whichever comes first.
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      this.#running--;
      queueMicrotask(() => this.#pump());
    };
    this.hooks.started?.(step);
    let work: Promise<string | undefined>;
    try {
      work = this.hooks.run(step, free);
    } catch (err) {
      work = Promise.reject(err);
    }
    work
      .then(
        (id): StepResult => (id ? { status: "done", id } : { status: "done" }),
        (err: unknown): StepResult => ({
          status: "failed",
          error: err instanceof Error ? err : new Error(String(err)),
        }),
      )
      .then((result) => {
        this.hooks.finished?.(step, result);
        this.#end(step, result);
        if (held) {
          held = false;
          this.#running--;
        }
        // Dependents it released may start, even when its place was freed earlier.
        this.#pump();
      });
  }

  #checkDone(): void {
    if (this.#results.size === this.steps.length && !this.#reported) {
      this.#reported = true;
      this.done(this.#results);
    }
  }
}
