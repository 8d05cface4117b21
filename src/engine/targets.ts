/**
 * `--target` and `--exclude` (docs/plan.md > Targeting): a plan narrowed to part of the configuration,
 * in the manner of Terraform's `-target` / `-exclude`. Applied to a whole plan, so the planner stays
 * one pure function; the result is marked `partial` and every rendering warns about it.
 *
 * - An ADDRESS matches itself and every address below it: `api_keys` all keys, `edges.https.E` every
 *   module of edge E, `api_keys.ci` that key.
 * - `--target`: the matched changes, plus what they depend on (the targets of their `${ref:}`s,
 *   transitively, so their ids exist); for a delete, also the objects that still refer to it (they must
 *   change first).
 * - `--exclude`: the matched changes, and every change that depends on one of them, are left out.
 */

import { UsageError } from "../errors.js";
import { didYouMean } from "../model/words.js";
import type { Change, Plan } from "./action.js";

/** What to keep of a plan. */
export interface TargetOptions {
  target?: readonly string[];
  exclude?: readonly string[];
}

/** True when `address` is `pattern` or below it. */
export function matchesAddress(address: string, pattern: string): boolean {
  return address === pattern || address.startsWith(`${pattern}.`);
}

/**
 * The part of `plan` that `options` selects (the plan itself when neither is given).
 * @throws UsageError for an ADDRESS that matches nothing in the plan (with the closest address).
 */
export function selectTargets(plan: Plan, options: TargetOptions): Plan {
  const target = options.target ?? [];
  const exclude = options.exclude ?? [];
  if (target.length === 0 && exclude.length === 0) return plan;
  const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
  for (const [flag, patterns] of [
    ["--target", target],
    ["--exclude", exclude],
  ] as const) {
    for (const p of patterns) {
      if (![...byAddress.keys()].some((a) => matchesAddress(a, p))) {
        throw new UsageError(
          `${flag} ${p}: matches no address of this stack${didYouMean(p, byAddress.keys())}`,
        );
      }
    }
  }
  let keep = new Set(byAddress.keys());
  if (target.length > 0)
    keep = closure(
      plan.changes.filter((c) => target.some((p) => matchesAddress(c.address, p))),
      byAddress,
    );
  if (exclude.length > 0) {
    const excluded = dependents(
      plan.changes.filter((c) => exclude.some((p) => matchesAddress(c.address, p))),
      plan.changes,
    );
    for (const a of excluded) keep.delete(a);
  }
  return {
    ...plan,
    changes: plan.changes.filter((c) => keep.has(c.address)),
    forget: plan.forget.filter((a) => keep.has(a) || target.some((p) => matchesAddress(a, p))),
    partial: { target: [...target], exclude: [...exclude] },
  };
}

/** `start` and what it needs: reference targets, and for deletes the objects still referring to them. */
function closure(start: Change[], byAddress: Map<string, Change>): Set<string> {
  const seen = new Set<string>();
  const queue = start.map((c) => c.address);
  while (queue.length > 0) {
    const address = queue.pop() as string;
    if (seen.has(address)) continue;
    seen.add(address);
    const c = byAddress.get(address);
    if (!c) continue;
    queue.push(...c.dependsOn);
    if (c.action === "delete" || c.action === "replace") queue.push(...(c.deleteAfter ?? []));
  }
  return seen;
}

/** `start` and every change that depends on one of them, transitively. */
function dependents(start: Change[], all: Change[]): Set<string> {
  const out = new Set(start.map((c) => c.address));
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of all) {
      if (!out.has(c.address) && c.dependsOn.some((d) => out.has(d))) {
        out.add(c.address);
        grew = true;
      }
    }
  }
  return out;
}
