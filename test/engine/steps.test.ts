/** The plan as a graph of calls: targets first, referrers before the deletion of their targets. */
import { describe, expect, it } from "vitest";
import type { Change } from "../../src/engine/action.js";
import { buildSteps } from "../../src/engine/steps.js";

const change = (address: string, action: Change["action"], extra: Partial<Change> = {}): Change => ({
  address,
  kind: "api_key",
  action,
  changedFields: [],
  reason: "",
  dependsOn: [],
  ...extra,
});

describe("steps", () => {
  it("splits a replace in two halves ordered by replaceOrder", () => {
    expect(
      buildSteps([change("a", "replace", { replaceOrder: "delete-first" })]).map((s) => [s.key, s.deps]),
    ).toEqual([
      ["delete:a", []],
      ["create:a", ["delete:a"]],
    ]);
    expect(
      buildSteps([change("a", "replace", { replaceOrder: "create-first" })]).map((s) => [s.key, s.deps]),
    ).toEqual([
      ["create:a", []],
      ["delete:a", ["create:a"]],
    ]);
  });

  it("waits for the create of targets, and deletes after referrers", () => {
    const steps = buildSteps([
      change("dest", "replace", { replaceOrder: "create-first", deleteAfter: ["sub"] }),
      change("sub", "update", { dependsOn: ["dest"] }),
      change("old", "delete", { deleteAfter: ["sub"] }),
      change("same", "no-op"),
    ]);
    expect(Object.fromEntries(steps.map((s) => [s.key, s.deps]))).toEqual({
      "create:dest": [],
      "delete:dest": ["create:dest", "update:sub"],
      "update:sub": ["create:dest"],
      "delete:old": ["update:sub"],
    });
  });

  it("refuses a dependency cycle", () => {
    expect(() =>
      buildSteps([change("a", "create", { dependsOn: ["b"] }), change("b", "create", { dependsOn: ["a"] })]),
    ).toThrow(/dependency cycle/);
  });
});
