/**
 * Saved plans (`tgw plan --out FILE`, then `tgw apply FILE`). A saved plan holds no secret: it keeps
 * what it was made against (state lineage and serial, fingerprints of the refreshed live state and of
 * the desired state) and a digest of its changes. Apply re-reads the configuration (secret values
 * come from there, checked against the desired fingerprint), refreshes, plans again and refuses unless
 * everything is as it was: then the new plan is the saved one, exactly.
 */
import { canonicalJson, getKind } from "../model/index.js";
import type { Plan, PlanBasis } from "./action.js";
import { StalePlanError } from "./errors.js";
import { sha256 } from "./fingerprint.js";
import { maskValues } from "./mask.js";

/** What `checkSavedPlan` needs from a saved plan. */
export interface SavedPlanCheck {
  basis: PlanBasis;
  /** `planDigest` of the saved plan. */
  digest: string;
  destroy: boolean;
}

/** SHA-256 of a plan's changes (values masked) and state updates: equal plans have equal digests. */
export function planDigest(plan: Plan): string {
  const changes = plan.changes.map((c) => ({
    ...c,
    ...(c.before ? { before: maskValues(getKind(c.kind), c.before, c.sensitive) } : {}),
    ...(c.after ? { after: maskValues(getKind(c.kind), c.after, c.sensitive) } : {}),
  }));
  return sha256(canonicalJson({ destroy: plan.destroy, changes, forget: plan.forget }));
}

/**
 * Refuses `fresh` (planned now) unless it is the saved plan made against the same state, live state
 * and configuration.
 * @throws StalePlanError naming what changed.
 */
export function checkSavedPlan(saved: SavedPlanCheck, fresh: Plan): void {
  const a = saved.basis;
  const b = fresh.basis;
  if (saved.destroy !== fresh.destroy) {
    throw new StalePlanError(
      saved.destroy ? "it is a destroy plan; apply it with tgw destroy" : "it is not a destroy plan",
    );
  }
  // A plan made before any state existed has no lineage: any state written since is a change.
  if (a.lineage !== "" && b.lineage !== "" && a.lineage !== b.lineage) {
    throw new StalePlanError("the state is not the one the plan was made against (another lineage)");
  }
  if (a.serial !== b.serial || a.lineage !== b.lineage) {
    throw new StalePlanError(
      `the state changed since the plan was made (serial ${a.serial}, now ${b.serial})`,
    );
  }
  if (a.desiredFingerprint !== b.desiredFingerprint)
    throw new StalePlanError("the configuration changed since the plan was made");
  if (a.liveFingerprint !== b.liveFingerprint)
    throw new StalePlanError("the live state changed since the plan was made");
  if (saved.digest !== planDigest(fresh)) throw new StalePlanError("planning again gives other changes");
}
