/** The scheduler of apply steps: bounded concurrency, dependency order, skips, halts. */
import { describe, expect, it } from "vitest";
import type { Change } from "../../src/engine/action.js";
import { runSteps, type StepResult } from "../../src/engine/schedule.js";
import type { Step } from "../../src/engine/steps.js";

const step = (key: string, deps: string[] = []): Step => ({
  key,
  op: "create",
  change: {
    address: key,
    kind: "api_key",
    action: "create",
    changedFields: [],
    reason: "",
    dependsOn: [],
  } as Change,
  deps,
});

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("runSteps", () => {
  it("keeps at most `parallelism` steps running, starts ready steps in order, dependents after their targets", async () => {
    const steps = [step("a"), step("b"), step("c", ["e"]), step("d"), step("e"), step("f", ["a", "c"])];
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const results = await runSteps(steps, 2, {
      run: async (s) => {
        order.push(s.key);
        most = Math.max(most, ++running);
        await tick();
        running--;
        return `id-${s.key}`;
      },
      halted: () => false,
    });
    expect(most).toBe(2);
    expect(order).toEqual(["a", "b", "d", "e", "c", "f"]);
    expect(results.get("f")).toEqual({ status: "done", id: "id-f" });
    expect(results.size).toBe(6);
  });

  it("frees a place when a step says its calls are done, before it ends", async () => {
    let running = 0;
    let most = 0;
    await runSteps([step("a"), step("b"), step("c")], 1, {
      run: async (_s, callsDone) => {
        most = Math.max(most, ++running);
        await tick();
        running--;
        callsDone();
        await tick();
        await tick();
        return undefined;
      },
      halted: () => false,
    });
    expect(most).toBe(1);
  });

  it("skips the dependents of a failed step, transitively, and runs the others", async () => {
    const steps = [step("a"), step("b", ["a"]), step("c", ["b"]), step("d"), step("e", ["nowhere"])];
    const finished: [string, StepResult["status"]][] = [];
    const results = await runSteps(steps, 4, {
      run: async (s) => {
        if (s.key === "a") throw new Error("boom");
        if (s.key === "d") throw "not an Error";
        return undefined;
      },
      halted: () => false,
      finished: (s, r) => finished.push([s.key, r.status]),
    });
    expect(Object.fromEntries([...results].map(([k, r]) => [k, r.status]))).toEqual({
      a: "failed",
      b: "skipped",
      c: "skipped",
      d: "failed",
      e: "skipped",
    });
    expect((results.get("d") as { error: Error }).error.message).toBe("not an Error");
    expect(finished).toEqual([
      ["a", "failed"],
      ["d", "failed"],
    ]);
  });

  it("starts nothing once halted, lets running steps finish, and still resolves", async () => {
    let halt = false;
    const started: string[] = [];
    const results = await runSteps([step("a"), step("b"), step("c"), step("d", ["a"])], 1, {
      run: async (s) => {
        started.push(s.key);
        halt = true;
        await tick();
        return s.key;
      },
      halted: () => halt,
    });
    expect(started).toEqual(["a"]);
    expect([...results.values()].map((r) => r.status)).toEqual(["done", "skipped", "skipped", "skipped"]);
  });

  it("resolves at once without steps, and when run throws synchronously", async () => {
    await expect(runSteps([], 4, { run: async () => undefined, halted: () => false })).resolves.toEqual(
      new Map(),
    );
    const results = await runSteps([step("a")], 4, {
      run: () => {
        throw new Error("sync");
      },
      halted: () => false,
    });
    expect(results.get("a")?.status).toBe("failed");
  });
});

describe("runSteps, places freed early", () => {
  it("starts a dependent released by a step that freed its place before it ended", async () => {
    const order: string[] = [];
    const results = await runSteps([step("a"), step("b", ["a"])], 1, {
      run: async (s, callsDone) => {
        order.push(s.key);
        callsDone();
        await tick();
        return s.key;
      },
      halted: () => false,
    });
    expect(order).toEqual(["a", "b"]);
    expect(results.get("b")?.status).toBe("done");
  });
});
