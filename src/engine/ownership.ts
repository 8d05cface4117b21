/**
 * Ownership: which live object each address is (docs/state.md > Identity, whose numbered rules this
 * implements; > Claims). Pure: no I/O. The state decides: its inputs were already rewritten by
 * `moved:` and `import:` entries (./moves.ts, ./imports.ts) and its pending creates resolved
 * (./pending.ts). Every address's action comes from `decide`, over small enumerations
 * (test/engine/ownership-rules.test.ts tests every row). Terraform's objects carry the marker stack
 * `terraform:<stack>`, which no tgw stack equals: never adopted or deleted here (./safety.ts).
 */
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { fillPath, getKind, type OwnershipMarker } from "../model/index.js";
import type { StateRecord, StateSnapshot } from "../state/store.js";
import type { ForeignLineages, Unmanaged } from "./action.js";
import type { LiveObject, LiveState } from "./live.js";

/** Suffix of the state address that keeps the old object of a replace until it is deleted. */
export const DEPOSED_SUFFIX = "#deposed";

/** How a marker's claim stands against the state: seen by it, newer than it, or of an unseen lineage. */
export type Claim = "known" | "newer" | "foreign";

/** What `decide` reads of one address. */
export interface AddressFacts {
  configured: boolean;
  /** A `removed:` entry names the address: its object is let go, not deleted. */
  removed: boolean;
  /** The recorded object: no record, live, gone, or taken (it carries another stack's marker). */
  record: "none" | "live" | "gone" | "taken";
  /** An unrecorded object of the address's kind carries this stack's marker for the address. */
  marked: boolean;
}

/** What happens to one address (`decide`). */
export type Decision =
  | "keep" // the recorded object is the address's; its marker is rewritten if it names another
  | "adopt" // the unrecorded object marked for the address is the address's
  | "create" // nothing is the address's yet (`drift` when its record's object is gone)
  | "delete" // recorded, no longer configured
  | "let-go" // a `removed:` entry: the marker is taken out, the record dropped, the object kept
  | "forget" // the record's object is gone or another stack's: the record is dropped
  | "none"; // nothing to do

/**
 * The one decision of ownership, as a table over `f` (test/engine/ownership-rules.test.ts covers
 * every row). Invariant: `delete` only for a record whose address is neither configured nor kept.
 */
export function decide(f: AddressFacts): Decision {
  if (f.configured) {
    if (f.record === "live") return "keep";
    return f.marked ? "adopt" : "create";
  }
  if (f.record === "live") return f.removed ? "let-go" : "delete";
  if (f.record !== "none") return "forget";
  return f.removed && f.marked ? "let-go" : "none";
}

/**
 * How `marker` (of this stack) stands against `state`: a marker without a lineage (written before tgw
 * recorded it) is known; one of the state's lineage is known up to the state's serial; any lineage is
 * known up to the serial `state.claims` records for it.
 */
export function claimOf(marker: OwnershipMarker, state: StateSnapshot): Claim {
  const { lineage, serial } = marker;
  if (lineage === undefined) return "known";
  const taken = state.claims?.[lineage];
  const seen = lineage === state.lineage ? Math.max(state.serial, taken ?? 0) : taken;
  if (seen === undefined) return "foreign";
  return serial === undefined || serial <= seen ? "known" : lineage === state.lineage ? "newer" : "foreign";
}

/** A desired resource and the live object it is (if any). */
export interface Match {
  resource: DesiredResource;
  /** Id of the object: the live id, the module path, or undefined for an object still to create. */
  id?: string;
  live?: LiveObject;
  record?: StateRecord;
  /** How the live object was found. */
  via: "state" | "marker" | "path" | "none";
  /** The live object lacks this stack's marker for this address (ownership `marker` only). */
  needsMarker: boolean;
  /** The object the state recorded now carries this other stack's marker (so it is not matched). */
  takenBy?: string;
}

/** A live object this stack owns that desired state does not have: to delete, or to let go. */
export interface Orphan {
  address: string;
  kind: string;
  live: LiveObject;
  record?: StateRecord;
  /** `state`: recorded; `marker`: unrecorded, marked for an address a `removed:` entry names. */
  via: "state" | "marker";
}

/** The result of matching desired state with live state. */
export interface Ownership {
  /** One per desired resource, in the order given. */
  matches: Match[];
  orphans: Orphan[];
  /** State addresses whose objects are gone or another stack's, that desired state does not have. */
  forget: string[];
  unmanaged: Unmanaged[];
  /** Markers of this stack whose claims this state has not seen (./safety.ts refuses them). */
  conflicts?: ForeignLineages;
}

/** The API path of a module resource (its identity). */
export function modulePath(resource: DesiredResource): string {
  return fillPath(getKind(resource.kind).path, resource.pathParams ?? {});
}

/**
 * Matches `resources` (all of desired state, or none for a destroy) with live objects. An object
 * whose claim this state has not seen is matched as `--takeover` would take it (`conflicts` names
 * it, and ./safety.ts refuses the plan without `--takeover`), so the plan shows what the remedy does.
 */
export function matchOwnership(input: {
  desired: Pick<DesiredState, "stack" | "ownership" | "removed">;
  resources: DesiredResource[];
  live: LiveState;
  state: StateSnapshot;
  /** Marker address -> address, from `moved:` entries: a lost state's markers name the old addresses. */
  renamed?: (address: string) => string;
}): Ownership {
  const { desired, resources, state } = input;
  const ctx: Context = {
    stack: desired.stack,
    useMarkers: desired.ownership === "marker",
    live: input.live,
    state,
    wanted: new Set(resources.map((r) => r.address)),
    removed: new Set(desired.removed ?? []),
    marked: new Map(),
    adopted: new Set(),
  };
  const conflicts = collectMarked(ctx, input.renamed);
  const matches = resources.map((r) => matchResource(ctx, r));
  const { orphans, forget } = unconfiguredRecords(ctx);
  const unmanaged = letGoOrLeave(ctx, orphans);
  orphans.sort((a, b) => a.address.localeCompare(b.address));
  const conflict = conflictsOf(state, conflicts);
  return { matches, orphans, forget: forget.sort(), unmanaged, ...(conflict ? { conflicts: conflict } : {}) };
}

/** What the steps of `matchOwnership` share. */
interface Context {
  stack: string;
  useMarkers: boolean;
  live: LiveState;
  state: StateSnapshot;
  wanted: ReadonlySet<string>;
  removed: ReadonlySet<string>;
  /** Unrecorded objects carrying this stack's marker, by the address it names (moves followed). */
  marked: Map<string, LiveObject[]>;
  /** Ids adopted so far. */
  adopted: Set<string>;
}

/** `o`, unless it carries another stack's marker (it is that stack's). */
function ours(ctx: Context, o: LiveObject | undefined): LiveObject | undefined {
  return o && ctx.useMarkers && o.marker && o.marker.stack !== ctx.stack ? undefined : o;
}

/** Fills `ctx.marked`; returns the objects whose claims this state has not seen. */
function collectMarked(ctx: Context, renamed?: (address: string) => string): LiveObject[] {
  const recorded = new Set(Object.values(ctx.state.resources).map((r) => r.id));
  const conflicts: LiveObject[] = [];
  for (const o of ctx.useMarkers ? ctx.live.objects.values() : []) {
    if (o.marker?.stack !== ctx.stack) continue;
    if (claimOf(o.marker, ctx.state) !== "known") conflicts.push(o);
    if (recorded.has(o.id)) continue;
    const address = renamed?.(o.marker.address) ?? o.marker.address;
    ctx.marked.set(address, [...(ctx.marked.get(address) ?? []), o]);
  }
  return conflicts;
}

/** The oldest unrecorded object of `kind` marked for `address`, if any. */
function adoptable(ctx: Context, address: string, kind: string): LiveObject | undefined {
  return (ctx.marked.get(address) ?? []).filter((o) => o.kind === kind).sort(olderFirst)[0];
}

/** The match of one configured resource, by `decide`. */
function matchResource(ctx: Context, resource: DesiredResource): Match {
  const { address } = resource;
  const record = ctx.state.resources[address];
  if (getKind(resource.kind).module) return moduleMatch(resource, record, ctx.live);
  const stored = record ? ctx.live.objects.get(record.id) : undefined;
  const obj = ours(ctx, stored);
  const found = adoptable(ctx, address, resource.kind);
  const facts: AddressFacts = {
    configured: true,
    removed: false,
    record: recordState(record, obj, stored),
    marked: found !== undefined,
  };
  const needsMarker = (o: LiveObject) =>
    ctx.useMarkers && !(o.marker?.stack === ctx.stack && o.marker.address === address);
  const decision = decide(facts);
  if (decision === "keep" && obj) return matchOf(resource, obj, record, "state", needsMarker(obj));
  if (decision === "adopt" && found) {
    ctx.adopted.add(found.id);
    return matchOf(resource, found, record, "marker", needsMarker(found));
  }
  const takenBy = facts.record === "taken" ? stored?.marker?.stack : undefined;
  return matchOf(resource, undefined, record, "none", false, takenBy);
}

/** The records of addresses not configured, by `decide`: objects to delete or let go, records to forget. */
function unconfiguredRecords(ctx: Context): { orphans: Orphan[]; forget: string[] } {
  const { live } = ctx;
  const orphans: Orphan[] = [];
  const forget: string[] = [];
  for (const record of Object.values(ctx.state.resources)) {
    if (ctx.wanted.has(record.address)) continue;
    const module = getKind(record.kind).module;
    const stored = module ? live.modules.get(record.id) : live.objects.get(record.id);
    const obj = module ? stored : ours(ctx, stored);
    // A record whose object was not read (its kind neither listed nor its id read) is left as it is.
    const read = module
      ? live.readModules.has(record.id)
      : live.listedKinds.has(record.kind) || live.readIds.has(record.id);
    if (!stored && !read) continue;
    const facts: AddressFacts = {
      configured: false,
      removed: ctx.removed.has(record.address),
      record: recordState(record, obj, stored),
      marked: false,
    };
    const decision = decide(facts);
    if ((decision === "delete" || decision === "let-go") && obj)
      orphans.push({ address: record.address, kind: record.kind, live: obj, record, via: "state" });
    else if (decision === "forget") forget.push(record.address);
  }
  return { orphans, forget };
}

/**
 * The unrecorded marked objects nothing adopted, by `decide`: those marked for an address a `removed:`
 * entry names are let go (added to `orphans`), the others are left alone (returned, sorted).
 */
function letGoOrLeave(ctx: Context, orphans: Orphan[]): Unmanaged[] {
  const unmanaged: Unmanaged[] = [];
  for (const [address, list] of ctx.marked) {
    for (const o of list) {
      if (ctx.adopted.has(o.id)) continue;
      const facts: AddressFacts = {
        configured: ctx.wanted.has(address),
        removed: ctx.removed.has(address),
        record: "none",
        marked: true,
      };
      if (decide(facts) === "let-go") orphans.push({ address, kind: o.kind, live: o, via: "marker" });
      else unmanaged.push({ id: o.id, kind: o.kind, address });
    }
  }
  return unmanaged.sort((a, b) => a.address.localeCompare(b.address) || a.id.localeCompare(b.id));
}

/**
 * `AddressFacts.record` of a record: its object `obj` (undefined when `stored`, the object under its
 * id, carries another stack's marker), else gone.
 */
function recordState(
  record: StateRecord | undefined,
  obj: LiveObject | undefined,
  stored: LiveObject | undefined,
): AddressFacts["record"] {
  if (!record) return "none";
  if (obj) return "live";
  return stored ? "taken" : "gone";
}

function moduleMatch(resource: DesiredResource, record: StateRecord | undefined, live: LiveState): Match {
  const path = modulePath(resource);
  return { ...matchOf(resource, live.modules.get(path), record, "path", false), id: path };
}

/** Examples named in a refusal (./safety.ts): enough to find the objects, not thousands of lines. */
const CONFLICT_EXAMPLES = 5;

/** The objects whose claims this state has not seen, by lineage, a few named; undefined when none. */
function conflictsOf(state: StateSnapshot, list: LiveObject[]): ForeignLineages | undefined {
  if (list.length === 0) return undefined;
  const byLineage = new Map<string, ForeignLineages["others"][number]>();
  for (const { marker } of list) {
    const lineage = marker?.lineage as string;
    const newer = lineage === state.lineage ? { newer: true as const } : {};
    const seen = byLineage.get(lineage) ?? { lineage, objects: 0, serial: 0, ...newer };
    seen.objects++;
    seen.serial = Math.max(seen.serial, marker?.serial ?? 0);
    byLineage.set(lineage, seen);
  }
  const others = [...byLineage.values()].sort((a, b) => a.lineage.localeCompare(b.lineage));
  const examples = list
    .map((o) => ({ id: o.id, address: o.marker?.address as string, serial: o.marker?.serial ?? 0 }))
    .sort((a, b) => a.address.localeCompare(b.address) || a.id.localeCompare(b.id))
    .slice(0, CONFLICT_EXAMPLES);
  return { lineage: state.lineage, serial: state.serial, others, examples };
}

/**
 * The claims a state holds once it takes over `conflicts` (`--takeover`): per lineage, the highest
 * serial of its markers (docs/state.md > Claims).
 */
export function claimsAfterTakeover(
  state: StateSnapshot,
  conflicts: ForeignLineages | undefined,
): Record<string, number> | undefined {
  if (!conflicts) return state.claims;
  const claims = { ...state.claims };
  for (const o of conflicts.others) claims[o.lineage] = Math.max(claims[o.lineage] ?? 0, o.serial);
  return claims;
}

/** Oldest first (`created_at`, then id): the order in which one of several objects is kept. */
export function olderFirst(a: LiveObject, b: LiveObject): number {
  const ta = typeof a.raw.created_at === "string" ? a.raw.created_at : "";
  const tb = typeof b.raw.created_at === "string" ? b.raw.created_at : "";
  return ta.localeCompare(tb) || a.id.localeCompare(b.id);
}

/** The match of `resource` with `found` (none: to create). */
function matchOf(
  resource: DesiredResource,
  found: LiveObject | undefined,
  record: StateRecord | undefined,
  via: Match["via"],
  needsMarker: boolean,
  takenBy?: string,
): Match {
  return {
    resource,
    ...(found ? { id: found.id, live: found } : {}),
    ...(record ? { record } : {}),
    via,
    needsMarker,
    ...(takenBy !== undefined ? { takenBy } : {}),
  };
}
