/**
 * The plan as a graph of API calls: one step per call (a replace is two: its create and its delete),
 * each with the steps that must finish before it starts.
 *
 * - create / update / put of a change wait for the create of every reference target being created or
 *   replaced (`Change.dependsOn`): targets first.
 * - the delete of a change (or of a replace's old object) waits for every step of the changes that
 *   still refer to it (`Change.deleteAfter`): referrers change before their targets go.
 * - a replace's second half waits for its first (`replaceOrder`).
 */
import type { Change } from "./action.js";

/** One API call of an apply. */
export interface Step {
  /** `<op>:<address>`, unique in a plan. */
  key: string;
  op: "create" | "update" | "put" | "delete" | "forget";
  change: Change;
  /** Keys of the steps that must finish first. */
  deps: string[];
}

/**
 * The steps of `changes` (no-ops have none), in plan order.
 * @throws Error on a dependency cycle (a bug: the config layer rejects reference cycles).
 */
export function buildSteps(changes: readonly Change[]): Step[] {
  const steps: Step[] = [];
  const byAddress = new Map<string, Step[]>();
  const add = (change: Change, op: Step["op"], deps: string[] = []) => {
    const step: Step = { key: `${op}:${change.address}`, op, change, deps };
    steps.push(step);
    const same = byAddress.get(change.address);
    if (same) same.push(step);
    else byAddress.set(change.address, [step]);
    return step;
  };
  for (const c of changes) {
    if (c.action === "create") add(c, "create");
    else if (c.action === "update") add(c, "update");
    else if (c.action === "put") add(c, "put");
    else if (c.action === "delete") add(c, "delete");
    else if (c.action === "forget") add(c, "forget");
    else if (c.action === "replace") {
      if (c.replaceOrder === "create-first") {
        const created = add(c, "create");
        add(c, "delete", [created.key]);
      } else {
        const deleted = add(c, "delete");
        add(c, "create", [deleted.key]);
      }
    }
  }
  for (const step of steps) {
    const c = step.change;
    if (step.op === "delete") {
      for (const referrer of c.deleteAfter ?? []) {
        for (const s of byAddress.get(referrer) ?? []) step.deps.push(s.key);
      }
    } else {
      for (const target of c.dependsOn) {
        const producer = byAddress.get(target)?.find((s) => s.op === "create");
        if (producer) step.deps.push(producer.key);
      }
    }
    if (step.deps.length > 0) step.deps = [...new Set(step.deps)].filter((k) => k !== step.key);
  }
  assertAcyclic(steps);
  return steps;
}

function assertAcyclic(steps: Step[]): void {
  // A step without dependencies is on no cycle: most plans (all creates) need no walk at all.
  if (steps.every((s) => s.deps.length === 0)) return;
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const mark = new Map<string, 1 | 2>();
  const visit = (s: Step, path: string[]) => {
    const m = mark.get(s.key);
    if (m === 2) return;
    if (m === 1) throw new Error(`dependency cycle between changes: ${[...path, s.key].join(" -> ")}`);
    mark.set(s.key, 1);
    for (const d of s.deps) {
      const dep = byKey.get(d);
      if (dep) visit(dep, [...path, s.key]);
    }
    mark.set(s.key, 2);
  };
  for (const s of steps) visit(s, []);
}
