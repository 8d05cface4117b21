/**
 * Objects the Terraform provider created for a stack of this name (issue 27): tgw never adopts or
 * deletes them (their marker stack `terraform:<stack>` is no tgw stack's, ./ownership.ts); the plan
 * reports them for the safety rule `other_driver` (./safety.ts). Pure: no I/O.
 */
import { TERRAFORM_STACK_PREFIX } from "../model/index.js";
import type { TerraformObjects } from "./action.js";
import type { LiveState } from "./live.js";

/**
 * The live objects of `kinds` whose Terraform markers name the stack `stack`: marker stacks
 * `terraform:<stack>/<workspace>` or `terraform:<stack>-<8 hex>/<workspace>` (the provider's default
 * `stack` in a working directory named `<stack>`, which is where `cdktf deploy` runs Terraform for a
 * CDKTF stack of that name: cdktf.out/stacks/<stack>). Any workspace, or none (`terraform:<stack>`, as
 * earlier providers wrote it). Undefined when there are none.
 */
export function terraformObjects(
  stack: string,
  kinds: ReadonlySet<string>,
  live: LiveState,
): TerraformObjects | undefined {
  if (kinds.size === 0) return undefined;
  // A tgw stack name holds only letters, digits, _, . and -: escaped for the regular expression anyway.
  const escaped = stack.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Without a workspace: the marker of providers before issue 27 (`terraform:<directory name>`).
  const pattern = new RegExp(`^${TERRAFORM_STACK_PREFIX}${escaped}(-[0-9a-f]{8})?(/[^/]+)?$`);
  const stacks = new Set<string>();
  const found = new Set<string>();
  let objects = 0;
  for (const o of live.objects.values()) {
    if (!kinds.has(o.kind) || !o.marker || !pattern.test(o.marker.stack)) continue;
    objects++;
    stacks.add(o.marker.stack);
    found.add(o.kind);
  }
  if (objects === 0) return undefined;
  return { objects, stacks: [...stacks].sort(), kinds: [...found].sort() };
}
