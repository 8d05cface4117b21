/**
 * The vocabulary of a plan (docs/design.md section 2): one `Action` per change, and the `Change` /
 * `Plan` records that the planner produces, the safety checks read, the renderers print and apply
 * executes. Plain serialisable data, no behaviour beyond a few predicates.
 *
 * Actions:
 * - `create`: POST a new resource (ownership marker in its metadata).
 * - `update`: one PATCH carrying only the changed fields.
 * - `replace`: a replace-forcing field changed: create + delete (create first when something refers
 *   to the resource, so referrers can move to the new id before the old one goes; else delete first).
 * - `put`: a module set with one PUT (modules have no create/update: their identity is their path).
 * - `delete`: DELETE a resource this stack owns that the configuration no longer has.
 * - `forget`: stop managing a resource named by a `removed:` entry without deleting it: its ownership
 *   marker is taken out of its metadata (one PATCH) and its state record dropped (Terraform's
 *   `removed` block, its plan action `forget`).
 * - `no-op`: live already matches desired.
 */

import type { StateRecord } from "../state/store.js";

/** What a change does to its object. */
export type Action = "create" | "update" | "replace" | "put" | "delete" | "forget" | "no-op";

/** Every action, in the order plans list their counts. */
export const ACTIONS: readonly Action[] = ["create", "update", "replace", "put", "delete", "forget", "no-op"];

/** True when the change deletes an object (a delete, or the old half of a replace). */
export function destroys(action: Action): boolean {
  return action === "delete" || action === "replace";
}

/** True when the change makes an API call. */
export function isChange(action: Action): boolean {
  return action !== "no-op";
}

/** Field values of one object in comparable form (see ../engine/normalize.ts), by field name. */
export type Values = Record<string, unknown>;

/**
 * One planned change of one address.
 *
 * `before` is the live object (normalised to request fields, marker removed from metadata), `after`
 * the desired one (normalised, schema defaults applied); either is absent when there is no such side.
 * A reference to an object whose id is not known before apply stays `{"$ref": "<address>"}` in `after`.
 */
export interface Change {
  address: string;
  kind: string;
  action: Action;
  /** Server id of the live object (absent for a create); for a module, its API path. */
  id?: string;
  before?: Values;
  after?: Values;
  /** Fields whose value differs, sorted; for a replace, includes `replaceFields`. */
  changedFields: string[];
  /** Fields whose change forces the replace (sorted); only on `replace`. */
  replaceFields?: string[];
  /** Human explanation, for display only: it never drives apply. */
  reason: string;
  /** Addresses whose create (or replace) must finish before this change: its reference targets. */
  dependsOn: string[];
  /**
   * Addresses whose changes must finish before the old object is deleted (delete, replace): the
   * objects that still refer to it.
   */
  deleteAfter?: string[];
  /** Replaces only: `create-first` when something refers to the object, else `delete-first`. */
  replaceOrder?: "create-first" | "delete-first";
  /** Live differs from what was last applied (changed or deleted behind tgw's back). */
  drift?: boolean;
  /** The object was found through its ownership marker, not the state (the state is rebuilt on apply). */
  adopted?: boolean;
  /** Renamed by a `moved:` entry from this address: the object is kept, its marker rewritten. */
  movedFrom?: string;
  /** Adopted by an `import:` entry: the id of the existing object, now managed at this address. */
  importId?: string;
  /** API key creates: where apply writes the token (as configured, relative to the config directory). */
  tokenFile?: string;
  /** What the configuration calls the object besides its address: a CDKTF construct path. Display only. */
  label?: string;
  /** JSON pointers of values from the environment (DesiredResource.sensitive): masked like secrets. */
  sensitive?: string[];
}

/** How many changes of each kind of effect a plan has (modules' `put` counts as create or update). */
export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  /** Resources no longer managed, kept live (`removed:` entries); absent when none. */
  forget?: number;
  /** Existing objects adopted (`import:` entries), also counted by what else they do; absent when none. */
  import?: number;
}

/** What a plan was made against, so a saved plan can be refused once it is stale. */
export interface PlanBasis {
  /** State lineage, or `""` when no state existed yet. */
  lineage: string;
  serial: number;
  /** SHA-256 of the refreshed live objects the plan read (see ./live.ts `liveFingerprint`). */
  liveFingerprint: string;
  /** SHA-256 of the desired state (secret values included only through their digests). */
  desiredFingerprint: string;
}

/** An unrecorded object carrying this stack's marker that nothing adopts: reported, left alone. */
export interface Unmanaged {
  id: string;
  kind: string;
  /** The address its marker names. */
  address: string;
}

/**
 * Live objects of the stack whose markers carry claims this state has not seen (docs/state.md >
 * Claims): of its own lineage with a higher serial (the state is behind: an older copy was put back),
 * or of another lineage (another workspace's state wrote them, or this workspace's state was lost).
 */
export interface ForeignLineages {
  /** The lineage of this workspace's state. */
  lineage: string;
  /** The serial of this workspace's state. */
  serial: number;
  /**
   * Each lineage found in such markers, how many objects carry it and the highest serial among them
   * (`newer`: the state's own lineage), sorted by lineage.
   */
  others: { lineage: string; objects: number; serial: number; newer?: true }[];
  /** A few of the objects, by the address their marker names: enough to find them. */
  examples: { id: string; address: string; serial: number }[];
}

/**
 * Live objects of the kinds a plan creates whose ownership markers say Terraform created them for a
 * stack of this name (`terraform:<stack>/<workspace>`, ./terraform-objects.ts): the stack is
 * applied with Terraform or `cdktf deploy`, and tgw's creates would duplicate them.
 */
export interface TerraformObjects {
  /** How many objects. */
  objects: number;
  /** Their marker stacks, sorted. */
  stacks: string[];
  /** Their kinds, sorted. */
  kinds: string[];
}

/** A whole plan: the changes sorted by address, and what the planner read. */
export interface Plan {
  stack: string;
  /** True for a `tgw destroy` plan (every object of the stack deleted). */
  destroy: boolean;
  /** Every managed address, `no-op` included, sorted by address. */
  changes: Change[];
  /** Addresses dropped from the state because their object no longer exists (no API call). */
  forget: string[];
  basis: PlanBasis;
  /**
   * Present when `--target` / `--exclude` narrowed the plan (./targets.ts): it may not hold every
   * change the configuration needs.
   */
  partial?: { target: string[]; exclude: string[] };
  /** Present when objects of the stack carry marker claims this state has not seen (./ownership.ts). */
  foreignLineages?: ForeignLineages;
  /**
   * Records made from pending creates found live (./pending.ts), written before any call. Never a
   * secret: records hold ids and digests only.
   */
  recover?: StateRecord[];
  /** Unrecorded objects carrying this stack's marker that the plan leaves alone (reported). */
  unmanaged?: Unmanaged[];
  /** Present when the plan creates objects of kinds whose live objects Terraform made for this stack. */
  terraformObjects?: TerraformObjects;
}

/** Counts of a plan's changes by effect. */
export function summarize(changes: readonly Change[]): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const c of changes) {
    if (c.action === "create") s.create++;
    else if (c.action === "update") s.update++;
    else if (c.action === "replace") s.replace++;
    else if (c.action === "delete") s.delete++;
    else if (c.action === "forget") s.forget = (s.forget ?? 0) + 1;
    if (c.importId !== undefined) s.import = (s.import ?? 0) + 1;
    else if (c.action === "put") {
      if (c.before === undefined) s.create++;
      else s.update++;
    }
  }
  return s;
}

/** True when applying the plan would call the API. */
export function hasChanges(plan: Pick<Plan, "changes">): boolean {
  return plan.changes.some((c) => isChange(c.action));
}
