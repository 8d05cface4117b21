/**
 * The machine rendering of a plan (`tgw plan --json`, and the body of a saved plan). Field names
 * are stable (format_version 1, documented in docs/plan.md); secrets are masked as `"(sensitive)"`;
 * an id not known before apply is `{"$ref": "<address>"}`. No-op changes are listed without their
 * values, so a consumer can tell which addresses are managed.
 */
import {
  type Change,
  type ForeignLineages,
  hasChanges,
  type Plan,
  summarize,
  type Unmanaged,
} from "../../engine/action.js";
import { maskValues } from "../../engine/mask.js";
import { getKind } from "../../model/index.js";

/** Version of the JSON plan format; bumped only on incompatible changes. */
export const PLAN_FORMAT_VERSION = 1;

/** One change in the JSON format. */
export interface JsonChange {
  address: string;
  kind: string;
  action: Change["action"];
  id?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  changed_fields: string[];
  replace_fields?: string[];
  replace_order?: "create-first" | "delete-first";
  reason: string;
  depends_on: string[];
  delete_after?: string[];
  drift: boolean;
  adopted: boolean;
  token_file?: string;
  /** CDKTF: the construct path of the resource. */
  label?: string;
  /** Renamed by a `moved:` entry from this address. */
  moved_from?: string;
  /** Adopted by an `import:` entry: the existing object's id (Terraform's `importing`). */
  importing?: { id: string };
}

/** The JSON plan document. */
export interface JsonPlan {
  format_version: number;
  stack: string;
  destroy: boolean;
  has_changes: boolean;
  summary: { create: number; update: number; replace: number; delete: number };
  changes: JsonChange[];
  drift: string[];
  forget: string[];
  basis: { lineage: string; serial: number; live_fingerprint: string; desired_fingerprint: string };
  /** Present when `--target` / `--exclude` narrowed the plan: it may not hold every change. */
  partial?: { target: string[]; exclude: string[] };
  /** Marker claims this state has not seen (a takeover): by lineage, with a few objects named. */
  foreign_lineages?: ForeignLineages;
  /** Unrecorded objects carrying this stack's marker, left alone. */
  unmanaged?: Unmanaged[];
  terraform_objects?: { objects: number; stacks: string[]; kinds: string[] };
}

/** The JSON document of `plan` (an object; callers stringify it). */
export function planToJson(plan: Plan): JsonPlan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    stack: plan.stack,
    destroy: plan.destroy,
    has_changes: hasChanges(plan),
    summary: summarize(plan.changes),
    changes: plan.changes.map(changeToJson),
    drift: plan.changes.filter((c) => c.drift).map((c) => c.address),
    forget: plan.forget,
    basis: {
      lineage: plan.basis.lineage,
      serial: plan.basis.serial,
      live_fingerprint: plan.basis.liveFingerprint,
      desired_fingerprint: plan.basis.desiredFingerprint,
    },
    ...(plan.partial ? { partial: plan.partial } : {}),
    ...(plan.foreignLineages ? { foreign_lineages: plan.foreignLineages } : {}),
    ...(plan.unmanaged ? { unmanaged: plan.unmanaged } : {}),
    ...(plan.terraformObjects ? { terraform_objects: plan.terraformObjects } : {}),
  };
}

function changeToJson(c: Change): JsonChange {
  const kind = getKind(c.kind);
  const values = c.action !== "no-op";
  return {
    address: c.address,
    kind: c.kind,
    action: c.action,
    ...(c.id !== undefined ? { id: c.id } : {}),
    ...(values && c.before ? { before: maskValues(kind, c.before, c.sensitive) } : {}),
    ...(values && c.after ? { after: maskValues(kind, c.after, c.sensitive) } : {}),
    changed_fields: c.changedFields,
    ...(c.replaceFields ? { replace_fields: c.replaceFields } : {}),
    ...(c.replaceOrder ? { replace_order: c.replaceOrder } : {}),
    reason: c.reason,
    depends_on: c.dependsOn,
    ...(c.deleteAfter ? { delete_after: c.deleteAfter } : {}),
    drift: c.drift === true,
    adopted: c.adopted === true,
    ...(c.tokenFile ? { token_file: c.tokenFile } : {}),
    ...(c.label ? { label: c.label } : {}),
    ...(c.movedFrom ? { moved_from: c.movedFrom } : {}),
    ...(c.importId ? { importing: { id: c.importId } } : {}),
  };
}

/**
 * The plan a JSON document describes (`tgw show PLANFILE` renders a saved plan with the human
 * renderer). Values stay as the document has them: secrets masked, ids not known yet as `$ref`.
 */
export function planFromJson(doc: JsonPlan): Plan {
  return {
    stack: doc.stack,
    destroy: doc.destroy,
    changes: doc.changes.map(changeFromJson),
    forget: doc.forget,
    basis: {
      lineage: doc.basis.lineage,
      serial: doc.basis.serial,
      liveFingerprint: doc.basis.live_fingerprint,
      desiredFingerprint: doc.basis.desired_fingerprint,
    },
    ...(doc.partial ? { partial: doc.partial } : {}),
    ...(doc.foreign_lineages ? { foreignLineages: doc.foreign_lineages } : {}),
    ...(doc.unmanaged ? { unmanaged: doc.unmanaged } : {}),
    ...(doc.terraform_objects ? { terraformObjects: doc.terraform_objects } : {}),
  };
}

function changeFromJson(c: JsonChange): Change {
  return {
    address: c.address,
    kind: c.kind,
    action: c.action,
    ...(c.id !== undefined ? { id: c.id } : {}),
    ...(c.before ? { before: c.before } : {}),
    ...(c.after ? { after: c.after } : {}),
    changedFields: c.changed_fields,
    ...(c.replace_fields ? { replaceFields: c.replace_fields } : {}),
    ...(c.replace_order ? { replaceOrder: c.replace_order } : {}),
    reason: c.reason,
    dependsOn: c.depends_on,
    ...(c.delete_after ? { deleteAfter: c.delete_after } : {}),
    ...(c.drift ? { drift: true } : {}),
    ...(c.adopted ? { adopted: true } : {}),
    ...(c.token_file ? { tokenFile: c.token_file } : {}),
    ...(c.label ? { label: c.label } : {}),
    ...(c.moved_from ? { movedFrom: c.moved_from } : {}),
    ...(c.importing ? { importId: c.importing.id } : {}),
  };
}
