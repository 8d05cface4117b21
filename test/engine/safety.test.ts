/** Safety checks refuse plans without rewriting them, listing every reason. */
import { describe, expect, it } from "vitest";
import { UnsafePlanError } from "../../src/engine/errors.js";
import { makePlan } from "../../src/engine/plan.js";
import { checkPlanSafety } from "../../src/engine/safety.js";
import { desired, live, marked, recordOf, res, state } from "./builders.js";

const key = (id: string, address: string) => ({
  kind: "api_key",
  id,
  description: "",
  metadata: marked(address),
  owner_id: "usr_1",
});

describe("safety", () => {
  const three = live([key("ak_1", "api_keys.a"), key("ak_2", "api_keys.b"), key("ak_3", "api_keys.c")]);
  // The state records the three (the state decides: an unrecorded object is never deleted).
  const recorded = () =>
    state([
      recordOf(res("api_keys.a"), "ak_1"),
      recordOf(res("api_keys.b"), "ak_2"),
      recordOf(res("api_keys.c"), "ak_3"),
    ]);

  it("refuses to delete or replace a resource with prevent_destroy, also in a destroy", () => {
    const d = desired([res("api_keys.a", {}, { options: { prevent_destroy: true } })]);
    const plan = makePlan({ desired: d, live: three, state: recorded(), destroy: true });
    expect(() => checkPlanSafety(plan, d)).toThrow(
      "the plan is refused: api_keys.a has prevent_destroy set but the plan would delete it",
    );
  });

  it("caps deletions with --max-deletes unless --force", () => {
    const d = desired([res("api_keys.a")]);
    const plan = makePlan({ desired: d, live: three, state: recorded() });
    expect(() => checkPlanSafety(plan, d, { maxDeletes: 1 })).toThrow(
      "the plan deletes 2 objects, more than --max-deletes 1 (use --force to allow)",
    );
    expect(() => checkPlanSafety(plan, d, { maxDeletes: 2 })).not.toThrow();
    expect(() => checkPlanSafety(plan, d, { maxDeletes: 1, force: true })).not.toThrow();
  });

  it("refuses an empty desired state against a stack that owns objects unless --allow-empty", () => {
    const d = desired([]);
    const plan = makePlan({ desired: d, live: three, state: recorded() });
    expect(() => checkPlanSafety(plan, d)).toThrow(
      /has no resources and would delete all 3 objects of stack "demo"/,
    );
    expect(() => checkPlanSafety(plan, d, { allowEmpty: true })).not.toThrow();
    const nothing = makePlan({ desired: d, live: live(), state: recorded() });
    expect(() => checkPlanSafety(nothing, d)).not.toThrow();
  });

  it("reports every broken rule at once", () => {
    const d = desired([]);
    const plan = makePlan({ desired: d, live: three, state: recorded() });
    try {
      checkPlanSafety(plan, d, { maxDeletes: 0 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UnsafePlanError);
      expect((err as UnsafePlanError).reasons.map((r) => r.rule)).toEqual([
        "max_deletes",
        "empty_desired_state",
      ]);
      expect((err as UnsafePlanError).code).toBe("unsafe_plan");
    }
  });
});
