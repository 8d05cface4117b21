/**
 * Issue 27, defect 5: which Terraform markers make the rule `other_driver` refuse a plan that creates
 * objects. A marker `terraform:<stack>[-<8 hex>][/<workspace>]` names the tgw stack `<stack>`; the
 * objects must be of a kind the plan creates.
 */
import { describe, expect, it } from "vitest";
import { UnsafePlanError } from "../../src/engine/errors.js";
import { makePlan } from "../../src/engine/plan.js";
import { checkPlanSafety } from "../../src/engine/safety.js";
import { encodeMetadata } from "../../src/model/index.js";
import { desired, live, res, STACK, state } from "./builders.js";

const byTerraform = (stack: string) =>
  encodeMetadata(undefined, { stack, address: "tunnelgw_tunnel_group_backend#0123456789abcdef" });

/** The plan of one backend to create, with live backends and API keys carrying `markers`. */
function planWith(markers: string[], kind: "tunnel_group_backend" | "api_key" = "tunnel_group_backend") {
  const objects = markers.map((m, i) => ({
    kind,
    id: `${kind === "api_key" ? "ak" : "bkdtg"}_tf${i}`,
    description: `tf ${i}`,
    metadata: byTerraform(m),
  }));
  const d = desired([res("tunnel_group_backends.web", { description: "web" })]);
  return { plan: makePlan({ desired: d, live: live(objects), state: state() }), d };
}

describe("the safety rule other_driver", () => {
  it.each([
    `terraform:${STACK}/default`,
    `terraform:${STACK}-0a1b2c3d/default`,
    `terraform:${STACK}-0a1b2c3d/prod`,
    `terraform:${STACK}`,
  ])("refuses creates when %s marks objects of that kind", (marker) => {
    const { plan, d } = planWith([marker, marker]);
    expect(plan.terraformObjects).toEqual({ objects: 2, stacks: [marker], kinds: ["tunnel_group_backend"] });
    const err = (() => {
      try {
        checkPlanSafety(plan, d);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UnsafePlanError);
    expect((err as UnsafePlanError).reasons.map((r) => r.rule)).toEqual(["other_driver"]);
    expect((err as Error).message).toContain(
      `2 objects of this stack (tunnel_group_backend) were created by Terraform (markers ${marker}): this stack is applied with terraform / cdktf deploy; tgw would create them again. Plan it with terraform, or move it to tgw (docs/terraform.md > `,
    );
    expect(() => checkPlanSafety(plan, d, { allowTerraformObjects: true })).not.toThrow();
  });

  it.each([
    `terraform:${STACK}x/default`,
    `terraform:${STACK}-prod/default`,
    `terraform:${STACK}-0A1B2C3D/default`,
    `terraform:x${STACK}/default`,
    `terraform:${STACK}/a/b`,
    STACK,
  ])("ignores %s", (marker) => {
    const { plan, d } = planWith([marker]);
    expect(plan.terraformObjects).toBeUndefined();
    expect(() => checkPlanSafety(plan, d)).not.toThrow();
  });

  it("ignores Terraform objects of kinds the plan does not create", () => {
    const { plan, d } = planWith([`terraform:${STACK}/default`], "api_key");
    expect(plan.terraformObjects).toBeUndefined();
    expect(() => checkPlanSafety(plan, d)).not.toThrow();
  });
});
