/**
 * The planner: a pure function of desired state, live state and the state store's snapshot that
 * returns the changes making live equal desired (docs/design.md sections 2 and 3). No I/O; the result
 * is plain data sorted by address, so the same inputs always give the same plan.
 *
 * - Each desired resource is matched with its live object (./ownership.ts), references are resolved
 *   to ids (targets first), both sides are normalised (./normalize.ts) and compared (./diff.ts):
 *   no live object -> `create` (`put` for a module); a replace-forcing field differs -> `replace`;
 *   another field differs -> `update` (`put`); else `no-op`.
 * - Orphans (owned objects the configuration no longer has) -> `delete`; with `destroy`, every owned
 *   object is an orphan.
 * - Ordering data for apply: `dependsOn` (targets whose create/replace gives this change an id),
 *   `deleteAfter` (changes of objects that still refer to one being deleted), and for a replace
 *   `create-first` when something refers to the object, else `delete-first`.
 * - Drift: live differs from what was last applied while the configuration has not changed since
 *   (the state fingerprint equals the desired one), or the recorded object has disappeared.
 */
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { canonicalJson, decodeMetadata, getKind } from "../model/index.js";
import { configuredTokenFile, returnsToken, shownTokenFile } from "../model/token-file.js";
import type { StateRecord, StateSnapshot } from "../state/store.js";
import type { Change, Plan, PlanBasis, Values } from "./action.js";
import { diffValues, replaceFields } from "./diff.js";
import { SharedRecordError } from "./errors.js";
import { digestOf, keptDigests, sha256, valuesFingerprint } from "./fingerprint.js";
import { applyImports, type Import } from "./imports.js";
import { type LiveState, liveFingerprint } from "./live.js";
import { mapSecrets } from "./mask.js";
import { applyMoves, type Move, renamedBy } from "./moves.js";
import { desiredValues, liveValues } from "./normalize.js";
import { DEPOSED_SUFFIX, type Match, matchOwnership, type Orphan } from "./ownership.js";
import { DUPLICATE_SUFFIX, type Duplicate, resolvePending } from "./pending.js";
import { holdsRefs, resolveRefs, unresolvedRefs } from "./refs.js";
import { terraformObjects } from "./terraform-objects.js";

/** Inputs of `makePlan`. */
export interface PlanInput {
  desired: DesiredState;
  live: LiveState;
  state: StateSnapshot;
  /** Plan the deletion of every object the stack owns (`tgw destroy`). */
  destroy?: boolean;
  /**
   * Addresses to replace even if nothing changed (`--replace`: rotate an API key, re-issue a host
   * certificate). An address that does not exist yet is simply created.
   */
  replace?: readonly string[];
  /** The configuration's `moved:` entries (./moves.ts). */
  moves?: readonly Move[];
  /**
   * Compute the basis fingerprints when they are first read instead of now (`tgw plan`: its human
   * and markdown output never reads them, and they cost a canonical JSON of every object). The
   * desired and live state must then stay unchanged until they are read.
   */
  lazyFingerprints?: boolean;
}

const MARKER_MISSING = "the ownership marker is missing";

const REISSUE =
  "made by an apply that was cut off before the answer holding its token arrived: nobody has its token, so it is deleted and created again";

/**
 * Plans the changes that make `live` equal `desired`. Pending creates are resolved first
 * (./pending.ts); their duplicates (further objects of one create) are deleted, each as its own
 * change `<address>#duplicate:<id>`.
 */
export function makePlan(input: PlanInput): Plan {
  const { desired } = input;
  const destroy = input.destroy === true;
  const moves = destroy ? [] : (input.moves ?? []);
  const { live } = input;
  const pending = resolvePending(desired.stack, input.state, live, returnsToken);
  const moved = applyMoves(pending.state, moves);
  const imported = applyImports(desired.stack, moved.state, live, destroy ? [] : (desired.imports ?? []));
  const { state } = imported;
  checkOneRecordPerObject(state);
  const own = matchOwnership({
    desired,
    resources: destroy ? [] : desired.resources,
    live,
    state,
    renamed: renamedBy(moves),
  });

  const byAddress = new Map<string, Match>();
  for (const m of own.matches) byAddress.set(m.resource.address, m);
  const renewed = new Set<string>();
  const idOf = (address: string) => (renewed.has(address) ? undefined : byAddress.get(address)?.id);

  const forced = new Set(input.replace ?? []);
  const changes: Change[] = [];
  for (const m of dependencyOrder(own.matches, byAddress)) {
    const reissue = m.live !== undefined && m.record?.tokenDelivered?.to === "nobody";
    const change = planMatch(m, idOf, forced.has(m.resource.address) || reissue, state.lineage);
    if (reissue && change.action === "replace") change.reason = REISSUE;
    if (change.action === "create" || change.action === "replace") {
      renewed.add(change.address);
      if (returnsToken(change.kind)) {
        change.tokenFile = shownTokenFile(configuredTokenFile(m.resource), desired.configDir);
      }
    }
    changes.push(change);
  }
  changes.push(...orphanChanges(own.orphans, changes, desired, destroy));
  for (const d of pending.duplicates) changes.push(duplicateDelete(d));
  const forget = [...own.forget, ...pending.drop];
  for (const move of moved.applied) {
    markMoved(changes, move);
    if (input.state.resources[move.from]) forget.push(move.from);
  }
  for (const i of imported.applied) markImported(changes, i);
  orderDeletes(changes, desired.resources);
  // A requested replace keeps the object usable throughout: the new API key exists before the old goes.
  for (const c of changes)
    if (c.action === "replace" && forced.has(c.address)) c.replaceOrder = "create-first";
  changes.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  assertOneChangePerAddress(changes);
  const foreign = own.conflicts;
  const duplicateIds = new Set(pending.duplicates.map((d) => d.live.id));
  const unmanaged = own.unmanaged.filter((u) => !duplicateIds.has(u.id));
  const created = new Set(changes.filter((c) => c.action === "create").map((c) => c.kind));
  const terraform = terraformObjects(desired.stack, created, live);

  return {
    stack: desired.stack,
    destroy,
    changes,
    forget: forget.sort(),
    basis: planBasis(
      state,
      () => liveFingerprint(live),
      () => desiredFingerprint(desired),
      input.lazyFingerprints === true,
    ),
    ...(foreign ? { foreignLineages: foreign } : {}),
    // At the address a `moved:` entry gives them: the plan's changes name that one.
    ...(pending.recovered.length > 0 ? { recover: recoveredAfter(pending.recovered, moved.applied) } : {}),
    ...(unmanaged.length > 0 ? { unmanaged } : {}),
    ...(terraform ? { terraformObjects: terraform } : {}),
  };
}

/**
 * The invariant the state keeps: no two records hold one object (a deposed record's object is its
 * own: the old half of a replace).
 * @throws SharedRecordError naming each shared object and its addresses
 */
function checkOneRecordPerObject(state: StateSnapshot): void {
  const first = new Map<string, string>();
  const shared = new Map<string, string[]>();
  for (const r of Object.values(state.resources)) {
    const other = first.get(r.id);
    if (other === undefined) first.set(r.id, r.address);
    else shared.set(r.id, [...(shared.get(r.id) ?? [other]), r.address]);
  }
  if (shared.size > 0)
    throw new SharedRecordError([...shared].map(([id, addresses]) => ({ id, addresses: addresses.sort() })));
}

/** `recovered` (records of resolved pending creates) at the addresses `applied` moves give them. */
function recoveredAfter(recovered: StateRecord[], applied: Move[]): StateRecord[] {
  const movedTo = renamedBy(applied);
  return recovered.map((r) => ({ ...r, address: movedTo(r.address) }));
}

/** Plan address of a second object let go at one address: `<address>#marked:<id>` (never a state address). */
export const MARKED_SUFFIX = "#marked:";

/**
 * The plan's invariant that apply's schedule relies on: one change per address (`changes` sorted).
 * @throws Error (a defect of the planner, never the user's) naming the address
 */
function assertOneChangePerAddress(changes: readonly Change[]): void {
  for (let i = 1; i < changes.length; i++)
    if (changes[i]?.address === changes[i - 1]?.address)
      throw new Error(`internal error: the plan has two changes at ${changes[i]?.address}`);
}

/**
 * The deletes and forgets of `orphans` (a `removed:` entry's address: forgotten), each at an address
 * no change of `changes` has: a second object let go at one address (its record's, or another found
 * by its marker) is planned as `<address>#marked:<id>`.
 */
function orphanChanges(
  orphans: Orphan[],
  changes: Change[],
  desired: DesiredState,
  destroy: boolean,
): Change[] {
  const removed = new Set(desired.removed);
  const used = new Set(changes.map((c) => c.address));
  return orphans.map((o) => {
    const c = removed.has(o.address) ? orphanForget(o, desired.stack) : orphanDelete(o, destroy);
    if (used.has(c.address)) c.address = `${o.address}${MARKED_SUFFIX}${o.live.id}`;
    used.add(c.address);
    return c;
  });
}

/** The delete of an object the configuration no longer has (or of everything, with `destroy`). */
function orphanDelete(o: Orphan, destroy: boolean): Change {
  const kind = getKind(o.kind);
  return {
    address: o.address,
    kind: o.kind,
    action: "delete",
    id: o.live.id,
    before: liveValues(kind, o.live.raw, o.record?.writeOnly),
    changedFields: [],
    reason: o.address.endsWith(DEPOSED_SUFFIX)
      ? "the old object of a replace that was cut off"
      : destroy
        ? "tgw destroy"
        : o.via === "marker"
          ? "no longer in the configuration (found by its ownership marker)"
          : "no longer in the configuration",
    dependsOn: [],
  };
}

/**
 * The forget of an object a `removed:` entry names (also under `destroy`: the entry says to keep it).
 * When it carries a marker of this stack, `after` holds its metadata without the marker
 * (`changedFields`: the metadata field), which apply PATCHes; else apply only drops the record.
 */
function orphanForget(o: Orphan, stack: string): Change {
  const kind = getKind(o.kind);
  const field = kind.metadataField;
  const wire = field === undefined ? undefined : o.live.raw[field];
  // Any marker of this stack goes, also one naming another address (a `tgw state mv` not applied
  // yet): left there, the next plan would prune the object as that address's orphan.
  const marked = field !== undefined && typeof wire === "string" && o.live.marker?.stack === stack;
  return {
    address: o.address,
    kind: o.kind,
    action: "forget",
    id: o.live.id,
    before: liveValues(kind, o.live.raw, o.record?.writeOnly),
    ...(marked ? { after: { [field]: decodeMetadata(wire).user } } : {}),
    changedFields: marked ? [field] : [],
    reason: marked
      ? "removed: its ownership marker is taken out of its metadata, its state record dropped"
      : "removed: its state record is dropped",
    dependsOn: [],
  };
}

/** The delete of a second object made by one pending create, as `<address>#duplicate:<id>`. */
function duplicateDelete(d: Duplicate): Change {
  const kind = getKind(d.kind);
  return {
    address: `${d.address}${DUPLICATE_SUFFIX}${d.live.id}`,
    kind: d.kind,
    action: "delete",
    id: d.live.id,
    before: liveValues(kind, d.live.raw),
    changedFields: [],
    reason: `duplicate: the same create of ${d.address} made it and ${d.keptId}, which is kept`,
    dependsOn: [],
  };
}

/** Marks the change of `move.to` as moved (its reason says so), unless it creates a new object. */
function markMoved(changes: Change[], move: Move): void {
  const change = changes.find((c) => c.address === move.to);
  if (change && change.action !== "create" && change.action !== "replace") {
    change.movedFrom = move.from;
    const why = change.reason === MARKER_MISSING ? "its ownership marker is rewritten" : change.reason;
    change.reason = `moved from ${move.from}${change.action === "no-op" ? "" : ` (${why})`}`;
  }
}

/** Marks the change of `i.to` as an import of `i.id` (its reason says so), unless it replaces it. */
function markImported(changes: Change[], i: Import): void {
  const change = changes.find((c) => c.address === i.to);
  if (change && change.action !== "replace") {
    change.importId = i.id;
    const why = change.reason === MARKER_MISSING ? "its ownership marker is written" : change.reason;
    change.reason = `imported from ${i.id}${change.action === "no-op" ? "" : ` (${why})`}`;
  }
}

/**
 * The basis of a plan made against `state`; with `lazy`, each fingerprint is computed on its first
 * read (enumerable getters: JSON and spreads read them like plain fields) and kept.
 */
function planBasis(
  state: StateSnapshot,
  live: () => string,
  desired: () => string,
  lazy: boolean,
): PlanBasis {
  const lineage = state.serial === 0 ? "" : state.lineage;
  if (!lazy) return { lineage, serial: state.serial, liveFingerprint: live(), desiredFingerprint: desired() };
  let liveValue: string | undefined;
  let desiredValue: string | undefined;
  return {
    lineage,
    serial: state.serial,
    get liveFingerprint() {
      liveValue ??= live();
      return liveValue;
    },
    get desiredFingerprint() {
      desiredValue ??= desired();
      return desiredValue;
    },
  };
}

function planMatch(
  m: Match,
  idOf: (address: string) => string | undefined,
  forceReplace: boolean,
  lineage: string,
): Change {
  const kind = getKind(m.resource.kind);
  // Read only here: most resources hold no ref, and need no copy with refs resolved.
  const fields = holdsRefs(m.resource.fields) ? resolveRefs(m.resource.fields, idOf) : m.resource.fields;
  const after = desiredValues(kind, fields);
  const head = {
    address: m.resource.address,
    kind: kind.kind,
    dependsOn: unresolvedRefs(fields),
    ...(m.resource.label ? { label: m.resource.label } : {}),
    ...(m.resource.sensitive ? { sensitive: m.resource.sensitive } : {}),
  };
  if (!m.live) {
    const drift = m.record !== undefined && m.takenBy === undefined;
    return {
      ...head,
      action: kind.module ? "put" : "create",
      ...(kind.module ? { id: m.id as string } : {}),
      after,
      changedFields: Object.keys(after).sort(),
      reason: m.takenBy
        ? `${m.record?.id} now belongs to stack "${m.takenBy}"`
        : drift
          ? "deleted outside tgw (drift)"
          : kind.module
            ? "the module is not set"
            : "not in live state",
      ...(drift ? { drift } : {}),
    };
  }
  const before = liveValues(kind, m.live.raw, keptDigests(kind, fields, m.record?.writeOnly));
  let changed = diffValues(kind, after, before);
  const drift = changed.length > 0 && m.record?.fingerprint === valuesFingerprint(kind, after);
  const base = { ...head, id: m.id as string, before, after, ...(drift ? { drift } : {}) };
  const adopted = m.via === "marker";
  const markerField = kind.metadataField;
  if (m.needsMarker && markerField && !changed.includes(markerField))
    changed = [...changed, markerField].sort();
  if (forceReplace && !kind.module) {
    const forcing = replaceFields(kind, changed);
    return decided(base, adopted, "replace", changed, "replacement requested with --replace", forcing);
  }
  if (changed.length === 0) {
    const reason = m.via === "marker" ? "recovered from its ownership marker" : "up to date";
    return decided(base, adopted, "no-op", [], reason);
  }
  const what = drift ? `changed outside tgw (drift): ${changed.join(", ")}` : `${changed.join(", ")} changed`;
  if (kind.module) return decided(base, false, "put", changed, what);
  const forcing = replaceFields(kind, changed);
  if (forcing.length > 0) {
    const reason = `${forcing.join(", ")} cannot change in place${drift ? " (drift)" : ""}`;
    return decided(base, adopted, "replace", changed, reason, forcing);
  }
  // A PATCH sent anyway carries the marker with this state's lineage (a takeover rewrites it in passing).
  const staleLineage = m.live.marker?.lineage !== undefined && m.live.marker.lineage !== lineage;
  if (staleLineage && markerField && !changed.includes(markerField))
    changed = [...changed, markerField].sort();
  const markerOnly =
    markerField !== undefined &&
    changed.length === 1 &&
    changed[0] === markerField &&
    m.needsMarker &&
    before[markerField] === after[markerField];
  return decided(base, adopted, "update", changed, markerOnly ? MARKER_MISSING : what);
}

/** `change` completed with its decision, fields in the order the plan's changes always had. */
function decided(
  change: Omit<Change, "action" | "changedFields" | "reason">,
  adopted: boolean,
  action: Change["action"],
  changedFields: string[],
  reason: string,
  forcing?: string[],
): Change {
  return {
    ...change,
    ...(adopted ? { adopted: true } : {}),
    action,
    changedFields,
    ...(forcing ? { replaceFields: forcing } : {}),
    reason,
  };
}

/**
 * Desired resources ordered so that reference targets come before their referrers (`byAddress`:
 * `matches` by address).
 */
function dependencyOrder(matches: Match[], byAddress: ReadonlyMap<string, Match>): Match[] {
  const out: Match[] = [];
  const seen = new Set<Match>();
  const visit = (m: Match) => {
    if (seen.has(m)) return; // done, or a cycle (the config layer rejects those)
    seen.add(m);
    for (const dep of m.resource.dependsOn) {
      const target = byAddress.get(dep);
      if (target) visit(target);
    }
    out.push(m);
  };
  for (const m of matches) visit(m);
  return out;
}

/** Ids held by the reference fields of a change's live side (`before`). */
function referencedIds(change: Change): string[] {
  if (!change.before) return [];
  const kind = getKind(change.kind);
  const ids: string[] = [];
  for (const f of kind.fields) {
    if (!f.ref) continue;
    const v = change.before[f.name];
    if (typeof v === "string") ids.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === "string") ids.push(x);
  }
  return ids;
}

/**
 * Sets `deleteAfter` on deletes and replaces (the changes of objects that refer to the one going
 * away, by their live reference fields or by desired references) and picks each replace's order.
 */
function orderDeletes(changes: Change[], resources: DesiredResource[]): void {
  // Only deletes and replaces get an order: a plan without any (most) needs no index of referrers.
  if (!changes.some((c) => c.action === "delete" || c.action === "replace")) return;
  const referrersOfId = new Map<string, Set<string>>();
  for (const c of changes) {
    for (const id of referencedIds(c)) {
      const set = referrersOfId.get(id) ?? new Set();
      set.add(c.address);
      referrersOfId.set(id, set);
    }
  }
  const dependents = new Map<string, Set<string>>();
  for (const r of resources) {
    for (const target of r.dependsOn) {
      const set = dependents.get(target) ?? new Set();
      set.add(r.address);
      dependents.set(target, set);
    }
  }
  const changed = new Set(changes.filter((c) => c.action !== "no-op").map((c) => c.address));
  for (const c of changes) {
    if (c.action !== "delete" && c.action !== "replace") continue;
    const referrers = new Set([
      ...(c.id ? (referrersOfId.get(c.id) ?? []) : []),
      ...(c.action === "replace" ? (dependents.get(c.address) ?? []) : []),
    ]);
    referrers.delete(c.address);
    const after = [...referrers].filter((a) => changed.has(a)).sort();
    if (after.length > 0) c.deleteAfter = after;
    if (c.action === "replace") c.replaceOrder = referrers.size > 0 ? "create-first" : "delete-first";
  }
}

/**
 * SHA-256 of the whole desired state (stack, ownership, and every resource's fields, options and
 * path parameters), secret values included only through their digests.
 */
export function desiredFingerprint(desired: DesiredState): string {
  const rows = desired.resources.map((r) =>
    canonicalJson([
      r.address,
      r.kind,
      mapSecrets(getKind(r.kind), r.fields as Values, (v) => digestOf(canonicalJson(v))),
      r.options,
      r.pathParams ?? null,
    ]),
  );
  // Rows joined, not quoted as JSON strings again: escaping megabytes of quotes cost more than hashing.
  return sha256(`${canonicalJson([desired.stack, desired.ownership])}\n${rows.sort().join("\n")}`);
}
