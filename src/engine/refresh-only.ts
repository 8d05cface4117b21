/**
 * Refresh-only runs (`tgw plan --refresh-only`, `tgw apply --refresh-only`; Terraform's
 * `-refresh-only`): what changed outside tgw, and the state brought up to date with the live objects,
 * without changing any object. Made from an ordinary plan (./plan.ts), so ownership is decided once:
 *
 * - changed outside tgw: managed objects whose live values differ from what tgw last applied, while the
 *   configuration has not changed since (the plan's `drift`). Reported only: the state keeps no copy
 *   of the values, so there is nothing to record. When the configuration changed too, tgw cannot tell
 *   an outside change from a pending one; `tgw plan` shows both;
 * - deleted outside tgw: records whose object no longer exists. Dropped from the state;
 * - found: objects of this stack found through their ownership marker at an address whose record is
 *   missing or names another id. Recorded, with a fingerprint that matches no configuration and no
 *   digest of a write-only field, so the next plan compares them as if tgw had never applied them.
 *
 * `import:`, `moved:` and `removed:` entries, orphans, duplicates and deposed objects are left to
 * `tgw apply`: they change markers or objects.
 */
import type { DesiredState } from "../model/desired.js";
import type { StateRecord, StateSnapshot, StateStore, Unlock } from "../state/store.js";
import type { Change, Plan } from "./action.js";
import { NotConfirmedError } from "./errors.js";
import { sha256 } from "./fingerprint.js";
import { StateJournal } from "./journal.js";
import { type ReconcileInput, reconcile, takeStateLock } from "./reconcile.js";

/** What a refresh-only run found, and would write to the state. Sorted by address. */
export interface RefreshOnlyPlan {
  stack: string;
  /** Changed outside tgw since its last apply: reported, not recorded (see the module doc). */
  changedOutside: { address: string; kind: string; id: string; fields: string[] }[];
  /** Records whose object is gone: dropped. */
  drop: { address: string; kind: string; id: string }[];
  /** Objects found through their marker: recorded. */
  record: StateRecord[];
}

/** The refresh-only plan of an ordinary `plan` of `desired` against `state` (no I/O). */
export function refreshOnlyPlan(
  plan: Plan,
  desired: DesiredState,
  state: StateSnapshot,
  now: Date,
): RefreshOnlyPlan {
  const resources = new Map(desired.resources.map((r) => [r.address, r]));
  const out: RefreshOnlyPlan = { stack: plan.stack, changedOutside: [], drop: [], record: [] };
  for (const c of plan.changes) {
    const recorded = state.resources[c.address];
    if (c.drift && c.id !== undefined && c.before !== undefined)
      out.changedOutside.push({ address: c.address, kind: c.kind, id: c.id, fields: c.changedFields });
    if (c.drift && c.before === undefined && recorded)
      out.drop.push({ address: c.address, kind: recorded.kind, id: recorded.id });
    if (isFound(c) && recorded?.id !== c.id) {
      const dependsOn = resources.get(c.address)?.dependsOn ?? [];
      out.record.push({
        address: c.address,
        kind: c.kind,
        id: c.id as string,
        fingerprint: sha256(`refreshed ${c.id}`),
        ...(dependsOn.length > 0 ? { dependsOn: [...new Set(dependsOn)].sort() } : {}),
        appliedAt: now.toISOString(),
      });
    }
  }
  return out;
}

/** True when the refresh-only plan writes to the state. */
export function refreshOnlyWrites(plan: RefreshOnlyPlan): boolean {
  return plan.drop.length > 0 || plan.record.length > 0;
}

/** Inputs of `refreshOnly`: a reconcile's, and whether to write the state. */
export interface RefreshOnlyInput extends ReconcileInput {
  apply: boolean;
  /** Asked before writing (apply only); false cancels with NotConfirmedError. */
  approve?: (plan: RefreshOnlyPlan) => Promise<boolean>;
}

/**
 * Refreshes and plans (mode `plan`: no API call changes anything), then, with `apply`, writes the
 * refresh-only plan's records in one state write, holding the state lock from before the refresh.
 * @returns the refresh-only plan, whether the state was written, and the state after.
 * @throws the errors of `reconcile` in plan mode, LockTimeoutError, NotConfirmedError, the store's.
 */
export async function refreshOnly(
  input: RefreshOnlyInput,
): Promise<{ plan: RefreshOnlyPlan; applied: boolean; state: StateSnapshot }> {
  const { store, options = {} } = input;
  const holder = options.lockHolder ?? "tgw";
  const unlock: Unlock | undefined = input.apply ? await takeStateLock(input) : undefined;
  try {
    const { plan, state } = await reconcile({ ...input, options: { ...options, mode: "plan" } });
    const found = refreshOnlyPlan(plan, input.desired, state, new Date());
    if (!input.apply || !refreshOnlyWrites(found)) return { plan: found, applied: false, state };
    input.signal?.throwIfAborted();
    if (input.approve && !(await input.approve(found)))
      throw new NotConfirmedError("refresh cancelled: the state was not changed");
    const written = await writeRecords(store, state, found, holder, options.apiIdentity, input.onWriting);
    return { plan: found, applied: true, state: written };
  } finally {
    await unlock?.();
  }
}

async function writeRecords(
  store: StateStore,
  state: StateSnapshot,
  plan: RefreshOnlyPlan,
  command: string,
  api: StateSnapshot["api"],
  onWriting: RefreshOnlyInput["onWriting"],
): Promise<StateSnapshot> {
  const journal = new StateJournal(store, api ? { ...state, api } : state, undefined, { plan: [], command });
  onWriting?.(() => journal.flush().catch(() => {}));
  await journal.update(
    (records) => {
      for (const d of plan.drop) delete records[d.address];
      for (const r of plan.record) records[r.address] = r;
    },
    { now: true },
  );
  return journal.snapshot;
}

/** Found through its marker, and not adopted by an entry of the configuration. */
function isFound(c: Change): boolean {
  return c.adopted === true && c.id !== undefined && c.importId === undefined && c.movedFrom === undefined;
}
