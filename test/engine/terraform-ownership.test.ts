/**
 * Objects created through Terraform carry the marker stack `terraform:<stack>` (docs/terraform.md >
 * Ownership): a tgw stack never prunes, adopts by marker or imports them, since no tgw stack name can
 * contain `:`.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { STACK_PATTERN } from "../../src/config/layout.js";
import { importResource } from "../../src/engine/index.js";
import { encodeMetadata, isTerraformMarker, TERRAFORM_STACK_PREFIX } from "../../src/model/index.js";
import { desired, res, STACK } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const byTerraform = (stack: string) =>
  encodeMetadata(undefined, { stack: `${TERRAFORM_STACK_PREFIX}${stack}`, address: "tunnelgw_api_key" });

it("no tgw stack name can be a Terraform marker's stack", () => {
  expect(new RegExp(STACK_PATTERN).test(`${TERRAFORM_STACK_PREFIX}${STACK}`)).toBe(false);
  expect(isTerraformMarker({ stack: `${TERRAFORM_STACK_PREFIX}${STACK}`, address: "x" })).toBe(true);
  expect(isTerraformMarker({ stack: STACK, address: "api_keys.ci" })).toBe(false);
});

it("a tgw stack neither prunes nor adopts nor imports an object Terraform created", async () => {
  const made = await bench.api.post<{ id: string }>("/api_keys", {
    description: "CI",
    metadata: byTerraform(STACK),
  });
  const ci = res("api_keys.ci", { description: "CI" });
  // An empty configuration: nothing of this stack to delete.
  const empty = await bench.plan([], { allowEmpty: true });
  expect(empty.plan.changes.filter((c) => c.id === made.id)).toEqual([]);
  // The same address in the configuration: refused (rule other_driver, ./terraform-drivers.test.ts);
  // when allowed, a new object, not the Terraform one.
  await expect(bench.plan([ci])).rejects.toThrow("were created by Terraform");
  const { plan } = await bench.plan([ci], { allowTerraformObjects: true });
  expect(plan.changes[0]).toMatchObject({ address: "api_keys.ci", action: "create" });
  await expect(
    importResource({
      desired: desired([ci], "marker", bench.dir),
      api: bench.api,
      store: bench.store,
      address: "api_keys.ci",
      id: made.id,
    }),
  ).rejects.toThrow(`belongs to stack "${TERRAFORM_STACK_PREFIX}${STACK}"`);
});
