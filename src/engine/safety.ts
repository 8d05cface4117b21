/**
 * Safety checks: a separate step after planning that reads the plan and refuses it, rewriting
 * nothing. Every reason is collected and reported together (`UnsafePlanError`).
 *
 * - `prevent_destroy`: a resource whose configuration sets it may not be deleted or replaced.
 * - `--max-deletes N`: more than N objects deleted (deletes plus replaces) is refused unless `--force`.
 * - `--allow-empty`: a desired state with no resources, planned against a stack that owns objects,
 *   is refused without it (an empty or mistyped `-f` must not delete everything).
 * - `foreign_lineage`: objects of the stack whose marker claims this state has not seen (newer than
 *   it, or of another workspace's lineage: docs/state.md > Claims) are refused unless `takeover`,
 *   naming the objects and the remedies. No rule guesses which came first.
 * - `other_driver`: a plan that creates objects of kinds whose live objects carry a Terraform marker
 *   of this stack's name (`plan.terraformObjects`) is refused unless `allowTerraformObjects`: the
 *   stack is applied with Terraform or `cdktf deploy`, and tgw, which never adopts such objects,
 *   would create them all again (issue 27, defect 5).
 */
import type { DesiredState } from "../model/desired.js";
import { destroys, type ForeignLineages, type Plan, type TerraformObjects } from "./action.js";
import { UnsafePlanError, type UnsafeReason } from "./errors.js";

/** Options of the safety checks (the CLI flags of the same names). */
export interface SafetyOptions {
  /** Largest number of deletions (deletes + replaces) allowed; undefined: no limit. */
  maxDeletes?: number;
  /** Lifts `maxDeletes`. */
  force?: boolean;
  /** Allows an empty desired state to delete everything the stack owns. */
  allowEmpty?: boolean;
  /** Proceed although markers carry claims this state has not seen (`--takeover`). */
  takeover?: boolean;
  /** Create although Terraform markers name this stack (`--allow-terraform-objects`). */
  allowTerraformObjects?: boolean;
}

/**
 * What the plan says about marker claims this state has not seen, naming the lineages, a few objects
 * and the remedies: `stack "s": 3 objects carry ownership markers this state (lineage L, serial 4) has
 * not seen: 2 of lineage L up to serial 9 (newer than this state: an older copy was put back?) ...`.
 */
export function foreignLineageMessage(stack: string, f: ForeignLineages): string {
  const total = f.others.reduce((n, o) => n + o.objects, 0);
  const others = f.others
    .map((o) =>
      o.newer
        ? `${o.objects} written by this state's lineage after its serial (up to serial ${o.serial}): this state is behind, an older copy was put back`
        : `${o.objects} of lineage ${o.lineage} (another workspace's state, or a state that was lost)`,
    )
    .join("; ");
  const named = f.examples.map((e) => `${e.address} (${e.id}, serial ${e.serial})`).join(", ");
  const more = total > f.examples.length ? `, and ${total - f.examples.length} more` : "";
  return `stack "${stack}": ${total} object${total === 1 ? " carries" : "s carry"} ownership markers this state (lineage ${f.lineage}, serial ${f.serial}) has not seen: ${others}. Objects: ${named}${more}`;
}

/** The ways out of `foreignLineageMessage`'s conflict. */
export const FOREIGN_LINEAGE_REMEDIES =
  "Use the newer state (tgw state history / tgw state restore, or the state file the other workspace writes), or, if this workspace is to own them from now on, apply with --takeover (after a lost state, --takeover rebuilds it from the markers). Nothing was changed.";

/** What the rule `other_driver` says: who applies the stack, and the ways out. */
export function otherDriverMessage(t: TerraformObjects): string {
  const n = `${t.objects} object${t.objects === 1 ? "" : "s"}`;
  return `${n} of this stack (${t.kinds.join(", ")}) were created by Terraform (markers ${t.stacks.join(", ")}): this stack is applied with terraform / cdktf deploy; tgw would create them again. Plan it with terraform, or move it to tgw (docs/terraform.md > Moving a stack between Terraform and tgw); --allow-terraform-objects if they belong to another Terraform configuration of the same name`;
}

/**
 * Refuses an unsafe plan.
 * @throws UnsafePlanError listing every rule the plan breaks.
 */
export function checkPlanSafety(plan: Plan, desired: DesiredState, options: SafetyOptions = {}): void {
  const reasons: UnsafeReason[] = [];
  const guarded = new Set(desired.resources.filter((r) => r.options.prevent_destroy).map((r) => r.address));
  const protectedHits = plan.changes.filter((c) => destroys(c.action) && guarded.has(c.address));
  if (protectedHits.length > 0) {
    const addresses = protectedHits.map((c) => c.address);
    reasons.push({
      rule: "prevent_destroy",
      message: `${addresses.join(", ")} ${addresses.length === 1 ? "has" : "have"} prevent_destroy set but the plan would ${
        protectedHits.every((c) => c.action === "replace") ? "replace" : "delete"
      } ${addresses.length === 1 ? "it" : "them"}`,
      addresses,
    });
  }
  const deletions = plan.changes.filter((c) => destroys(c.action));
  if (options.maxDeletes !== undefined && !options.force && deletions.length > options.maxDeletes) {
    reasons.push({
      rule: "max_deletes",
      message: `the plan deletes ${deletions.length} objects, more than --max-deletes ${options.maxDeletes} (use --force to allow)`,
      addresses: deletions.map((c) => c.address),
    });
  }
  if (!plan.destroy && desired.resources.length === 0 && !options.allowEmpty) {
    const owned = plan.changes.filter((c) => c.action === "delete");
    if (owned.length > 0) {
      reasons.push({
        rule: "empty_desired_state",
        message: `the configuration has no resources and would delete all ${owned.length} objects of stack "${plan.stack}" (use --allow-empty if that is intended, or tgw destroy)`,
        addresses: owned.map((c) => c.address),
      });
    }
  }
  if (plan.foreignLineages && !options.takeover) {
    reasons.push({
      rule: "foreign_lineage",
      message: `${foreignLineageMessage(plan.stack, plan.foreignLineages)}. ${FOREIGN_LINEAGE_REMEDIES}`,
    });
  }
  // Only while the plan still creates such a kind: --target / --exclude may have left those creates out.
  const tf = plan.terraformObjects;
  if (
    tf &&
    !options.allowTerraformObjects &&
    plan.changes.some((c) => c.action === "create" && tf.kinds.includes(c.kind))
  ) {
    reasons.push({ rule: "other_driver", message: otherDriverMessage(tf) });
  }
  if (reasons.length > 0) throw new UnsafePlanError(reasons);
}
