/**
 * Ownership (docs/design.md section 3): which live object each desired address is, and which live
 * objects this stack owns that the configuration no longer has. Pure: no I/O.
 *
 * Rules, in order:
 * 1. A module's identity is its path: the desired module at `path` is whatever lives there.
 * 2. A resource recorded in the state whose id still exists is that object (the state is the journal).
 *    One object goes to one address: of two records holding one id, the address its marker names
 *    keeps it. A record is stale, and rule 3 decides instead, when the object's marker names another
 *    address and was written after this state (this lineage, a marker serial above the state's: an
 *    older copy of the state was put back), or by another workspace (another lineage) for an address
 *    the configuration has, unless the record's address is wanted too and no object carries its marker.
 *    A record whose object carries no marker (a `removed:` entry took it out) is stale when an object
 *    it does not record carries the address's marker, of another lineage or written after this state.
 * 3. Otherwise, a live object carrying this stack's marker for the address is that object (the state
 *    was lost or is stale, or a create's state write was cut off): it is adopted, not created again.
 * 4. Two live objects carrying one address's marker (two workspaces of one stack applied at once, each
 *    with its own state): one is kept, the others are duplicates, which the plan deletes. Kept: the
 *    one the state records (for an API key, the key whose token this workspace wrote), else the
 *    oldest (`created_at`, then id) of the address's own kind. When rule 2 gave the address an
 *    object that does not carry its marker yet (a `moved:` entry, an imported object), that object is
 *    kept and every object carrying the marker is a duplicate. An object rule 2 gave to another
 *    address, that the state records as the deposed half of an unfinished replace, or that it records
 *    under an address a `removed:` entry keeps, is not a duplicate.
 * 5. Owned objects the configuration no longer has (recorded in the state, or marked by this stack)
 *    are orphans: the plan deletes them. A module is an orphan only when the state says tgw set it.
 * 6. State records whose object is gone, or now carries another stack's marker, are forgotten; live
 *    objects without this stack's marker and absent from the state are never touched.
 *
 * With `ownership: state-only` markers are neither written nor read: rules 3 and 4 do not apply.
 * Objects created through Terraform carry the marker stack `terraform:<stack>`, which no tgw stack
 * name can equal (names cannot contain `:`): by rules 3, 5 and 6 a tgw stack never adopts or prunes them
 * (docs/terraform.md > Ownership). `terraformObjects` only reports them, for the safety rule
 * `other_driver` (./safety.ts).
 */
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { collections, fillPath, getKind, TERRAFORM_STACK_PREFIX } from "../model/index.js";
import type { StateRecord, StateSnapshot } from "../state/store.js";
import type { ForeignLineages, TerraformObjects } from "./action.js";
import type { LiveObject, LiveState } from "./live.js";

/** Suffix of the state address that keeps the old object of a replace until it is deleted. */
export const DEPOSED_SUFFIX = "#deposed";

/** Plan address of a duplicate's removal: `<address>#duplicate:<id>` (never a state address). */
export const DUPLICATE_SUFFIX = "#duplicate:";

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

/** A live object this stack owns that desired state does not have: to delete. */
export interface Orphan {
  address: string;
  kind: string;
  live: LiveObject;
  record?: StateRecord;
  via: "state" | "marker";
}

/** A second live object carrying the marker of an address whose kept object is `keptId`: to delete. */
export interface Duplicate {
  address: string;
  kind: string;
  live: LiveObject;
  keptId: string;
  /** Why `keptId` is the one kept: `state` (recorded there) or `oldest`. */
  keptBecause: "state" | "oldest";
}

/** The result of matching desired state with live state. */
export interface Ownership {
  /** One per desired resource, in the order given. */
  matches: Match[];
  orphans: Orphan[];
  /** Extra objects carrying an address's marker, sorted by address then id. */
  duplicates: Duplicate[];
  /** State addresses whose objects no longer exist and that desired state does not have. */
  forget: string[];
}

/** The API path of a module resource (its identity). */
export function modulePath(resource: DesiredResource): string {
  return fillPath(getKind(resource.kind).path, resource.pathParams ?? {});
}

/**
 * Matches `resources` (all of desired state, or none for a destroy) with live objects.
 */
export function matchOwnership(input: {
  desired: Pick<DesiredState, "stack" | "ownership" | "removed" | "moved">;
  resources: DesiredResource[];
  live: LiveState;
  state: StateSnapshot;
}): Ownership {
  const { resources, state } = input;
  const ctx = newContext(input);
  const { matches, pending } = matchByStateAndPath(ctx, resources);
  // Rule 4 on what rules 1 and 2 left: an object the state gives to an address is that address's, never
  // another's duplicate, whatever marker it carries.
  const marked = markedObjects(ctx);
  const duplicates = splitDuplicates(marked, state, ctx.claimed);
  for (const i of pending) matches[i] = matchByMarker(ctx, resources[i] as DesiredResource, marked);
  const { orphans, forget } = findOrphans(ctx, ctx.wanted, marked);
  return { matches, orphans, duplicates, forget };
}

/**
 * Rule 2's exception for a caller before the matching (./moves.ts: is a move's `to` taken?): a
 * function telling whether the state's record of an address yields to its object's marker, as
 * `matchOwnership` with the same input decides (`staleRecord`). False for an address without a
 * record or whose object is gone.
 */
export function recordYields(input: {
  desired: Pick<DesiredState, "stack" | "ownership">;
  resources: DesiredResource[];
  live: LiveState;
  state: StateSnapshot;
}): (address: string) => boolean {
  const ctx = newContext(input);
  return (address) => {
    const record = ctx.state.resources[address];
    const obj = record && ours(ctx, ctx.live.objects.get(record.id));
    return obj !== undefined && staleRecord(ctx, address, obj);
  };
}

/** The matching's context of `matchOwnership`'s input: nothing claimed yet. */
function newContext(input: Parameters<typeof matchOwnership>[0]): Context {
  return {
    stack: input.desired.stack,
    useMarkers: input.desired.ownership === "marker",
    live: input.live,
    state: input.state,
    claimed: new Map(),
    wanted: new Set(input.resources.map((r) => r.address)),
    removed: new Set(input.desired.removed ?? []),
    movedFrom: new Set((input.desired.moved ?? []).map((m) => m.from)),
  };
}

/** What the matching steps share; `claimed` maps each object id taken so far to its address. */
interface Context {
  stack: string;
  useMarkers: boolean;
  live: LiveState;
  state: StateSnapshot;
  claimed: Map<string, string>;
  /** The desired addresses. */
  wanted: ReadonlySet<string>;
  /** The addresses of `removed:` entries: their objects are kept, unmanaged. */
  removed: ReadonlySet<string>;
  /** The `from` of each `moved:` entry: its object goes to the entry's `to`. */
  movedFrom: ReadonlySet<string>;
  /** See `markedAddresses`. */
  markedAddresses?: Map<string, "this lineage" | "another lineage">;
  /** The addresses marked on unrecorded objects by this lineage after this state (a higher serial). */
  markedSince?: Set<string>;
}

/**
 * An object carrying another stack's marker belongs to that stack (it was imported there): a state
 * record of this stack pointing at it is stale and is forgotten, never acted on.
 */
function ours(ctx: Context, o: LiveObject | undefined): LiveObject | undefined {
  return o && ctx.useMarkers && o.marker && o.marker.stack !== ctx.stack ? undefined : o;
}

/**
 * Whether the state's record of `address` yields to `obj`'s marker, which names another address of
 * this stack (rule 2's exception):
 * - a marker of this lineage written after this state (a higher serial: an older copy of the state
 *   was put back) naming an address the configuration has or a `removed:` entry keeps (one it lacks
 *   would make the object an orphan, where the record keeps it);
 * - a marker of this lineage naming another address, when another workspace (another lineage) has
 *   an object marked for the record's address (it applied that address since: its object stands);
 * - a marker of another workspace's lineage naming an address the configuration has (or a `removed:`
 *   entry keeps, or a `moved:` entry moves from), when the record's own address is neither configured
 *   nor kept by a `removed:` entry (the record would make the object an orphan), or some object
 *   carries its marker.
 * Which came first (that workspace's apply, or a `state mv` here) is unknown: the way chosen deletes
 * nothing the configuration names.
 */
function staleRecord(ctx: Context, address: string, obj: LiveObject): boolean {
  const m = obj.marker;
  if (!ctx.useMarkers) return false;
  if (m === undefined) return unmarkedSince(ctx, address);
  if (m.stack !== ctx.stack || m.address === address) return false;
  if (m.lineage === undefined) return false;
  const markedFor = markedAddresses(ctx).get(address);
  const kept = ctx.wanted.has(m.address) || ctx.removed.has(m.address);
  // A record a `removed:` entry keeps deletes nothing: it decides as one the configuration has.
  const recordKept = ctx.wanted.has(address) || ctx.removed.has(address);
  // Another workspace's object marked for a `moved:` entry's `from` goes to the entry's `to`: kept too.
  const keptElsewhere = kept || ctx.movedFrom.has(m.address);
  if (m.lineage !== ctx.state.lineage) return keptElsewhere && (!recordKept || markedFor !== undefined);
  if (m.serial !== undefined && m.serial > ctx.state.serial && kept) return true;
  return markedFor === "another lineage";
}

/**
 * Whether the record of `address`, whose object carries no marker (a `removed:` entry took it out, or
 * it was never written), yields to an object the state does not record that carries the address's
 * marker, written by another workspace or after this state (an older copy of the state was put back):
 * the object was let go since and the marked one made for the address (rule 2's exception).
 */
function unmarkedSince(ctx: Context, address: string): boolean {
  return markedAddresses(ctx).get(address) === "another lineage" || ctx.markedSince?.has(address) === true;
}

/**
 * The addresses that the markers of this stack name on live objects the state does not record (a
 * recorded object's record speaks for it): `another lineage` when one of them carries another lineage
 * than this state's, else `this lineage`. Made when first needed, with `ctx.markedSince`.
 */
function markedAddresses(ctx: Context): Map<string, "this lineage" | "another lineage"> {
  if (ctx.markedAddresses === undefined) {
    const marked = new Map<string, "this lineage" | "another lineage">();
    const since = new Set<string>();
    const recorded = new Set(Object.values(ctx.state.resources).map((r) => r.id));
    for (const o of ctx.live.objects.values()) {
      const m = o.marker;
      if (m?.stack !== ctx.stack || recorded.has(o.id)) continue;
      if (m.lineage === ctx.state.lineage && m.serial !== undefined && m.serial > ctx.state.serial)
        since.add(m.address);
      if (marked.get(m.address) === "another lineage") continue;
      const foreign = m.lineage !== undefined && m.lineage !== ctx.state.lineage;
      marked.set(m.address, foreign ? "another lineage" : "this lineage");
    }
    ctx.markedAddresses = marked;
    ctx.markedSince = since;
  }
  return ctx.markedAddresses;
}

function needsMarker(ctx: Context, obj: LiveObject, address: string): boolean {
  return ctx.useMarkers && !(obj.marker?.stack === ctx.stack && obj.marker.address === address);
}

/**
 * Rules 1 and 2: modules by path, resources by their state record. One object goes to one address:
 * when two records hold one id, the address its marker names keeps it (else the first in order) and
 * the others are left for rule 3. Returns a match per resource index, and the indexes left (pending).
 */
function matchByStateAndPath(
  ctx: Context,
  resources: DesiredResource[],
): { matches: Match[]; pending: number[] } {
  const { live, state } = ctx;
  const matches = new Array<Match>(resources.length);
  const pending: number[] = [];
  const byId = new Map<string, number>();
  const anyDeposed = Object.keys(state.resources).some((a) => a.endsWith(DEPOSED_SUFFIX));
  for (let i = 0; i < resources.length; i++) {
    const resource = resources[i] as DesiredResource;
    const record = state.resources[resource.address];
    if (getKind(resource.kind).module) {
      const path = modulePath(resource);
      const obj = live.modules.get(path);
      matches[i] = {
        resource,
        id: path,
        ...(obj ? { live: obj } : {}),
        ...(record ? { record } : {}),
        via: "path",
        needsMarker: false,
      };
      continue;
    }
    // A replace whose new object may exist already (its old id is recorded as deposed): the marker decides.
    const replacing =
      record !== undefined &&
      anyDeposed &&
      state.resources[resource.address + DEPOSED_SUFFIX]?.id === record.id;
    const obj =
      record && record.kind === resource.kind && !replacing
        ? ours(ctx, live.objects.get(record.id))
        : undefined;
    if (!obj || obj.kind !== resource.kind || staleRecord(ctx, resource.address, obj)) {
      pending.push(i);
      continue;
    }
    const other = byId.get(obj.id);
    if (other !== undefined) {
      // Two records of one id: the marker's address keeps it.
      if (obj.marker?.address !== resource.address) {
        pending.push(i);
        continue;
      }
      pending.push(other);
    }
    byId.set(obj.id, i);
    matches[i] = matchOf(resource, obj, record, "state", needsMarker(ctx, obj, resource.address));
  }
  for (const [id, i] of byId) ctx.claimed.set(id, (resources[i] as DesiredResource).address);
  pending.sort((a, b) => a - b);
  return { matches, pending };
}

/**
 * The live objects carrying this stack's marker, by the address it names (rule 4's input): not the
 * deposed halves of replaces, nor objects rules 1 and 2 gave to another address, nor objects a
 * `removed:` entry keeps by its record. Kinds come first in each list: objects of the address's own
 * kind before any other (a marker copied by hand).
 */
function markedObjects(ctx: Context): Map<string, LiveObject[]> {
  const marked = new Map<string, LiveObject[]>();
  if (!ctx.useMarkers) return marked;
  const skipped = new Set(
    Object.values(ctx.state.resources)
      .filter((r) => r.address.endsWith(DEPOSED_SUFFIX) || keptByRemoved(ctx, r))
      .map((r) => r.id),
  );
  for (const o of ctx.live.objects.values()) {
    if (o.marker?.stack !== ctx.stack || skipped.has(o.id)) continue;
    const owner = ctx.claimed.get(o.id);
    if (owner !== undefined && owner !== o.marker.address) continue;
    const list = marked.get(o.marker.address) ?? [];
    list.push(o);
    marked.set(o.marker.address, list);
  }
  const kinds = collections();
  for (const [address, list] of marked) {
    const kind = kinds.get(address.slice(0, address.indexOf(".")))?.kind;
    if (list.length > 1 && kind !== undefined)
      marked.set(address, [...list.filter((o) => o.kind === kind), ...list.filter((o) => o.kind !== kind)]);
  }
  return marked;
}

/**
 * Whether `record` is of an address a `removed:` entry names and its object is that entry's to keep
 * (the record is not stale): after `tgw state mv d b` and `removed: b`, the object still marked d is
 * b's, not a duplicate of a new d.
 */
function keptByRemoved(ctx: Context, record: StateRecord): boolean {
  if (!ctx.removed.has(record.address)) return false;
  const obj = ours(ctx, ctx.live.objects.get(record.id));
  return obj !== undefined && !staleRecord(ctx, record.address, obj);
}

/** Rule 3 for a resource rules 1 and 2 left: its marker's object, else its record's, else none. */
function matchByMarker(ctx: Context, resource: DesiredResource, marked: Map<string, LiveObject[]>): Match {
  const { live, state, claimed } = ctx;
  const record = state.resources[resource.address];
  const byMarker = marked.get(resource.address)?.[0];
  const recorded = record ? ours(ctx, live.objects.get(record.id)) : undefined;
  const byState = recorded && !staleRecord(ctx, resource.address, recorded) ? recorded : undefined;
  if (byMarker && byMarker.kind === resource.kind && !claimed.has(byMarker.id)) {
    claimed.set(byMarker.id, resource.address);
    return matchOf(resource, byMarker, record, "marker", false);
  }
  if (byState && byState.kind === resource.kind && !claimed.has(byState.id)) {
    claimed.set(byState.id, resource.address);
    return matchOf(resource, byState, record, "state", needsMarker(ctx, byState, resource.address));
  }
  const other = record ? live.objects.get(record.id)?.marker?.stack : undefined;
  const takenBy = ctx.useMarkers && other !== undefined && other !== ctx.stack ? other : undefined;
  return matchOf(resource, undefined, record, "none", false, takenBy);
}

/** Rules 5 and 6: owned objects no address keeps are orphans; records of gone objects are forgotten. */
function findOrphans(
  ctx: Context,
  wanted: ReadonlySet<string>,
  marked: Map<string, LiveObject[]>,
): { orphans: Orphan[]; forget: string[] } {
  const { live, state, claimed } = ctx;
  const orphans: Orphan[] = [];
  const forget: string[] = [];
  for (const record of Object.values(state.resources)) {
    if (wanted.has(record.address)) continue;
    if (getKind(record.kind).module) {
      const obj = live.modules.get(record.id);
      if (obj) orphans.push({ address: record.address, kind: record.kind, live: obj, record, via: "state" });
      else if (live.readModules.has(record.id)) forget.push(record.address);
      continue;
    }
    const obj = ours(ctx, live.objects.get(record.id));
    if (obj && staleRecord(ctx, record.address, obj)) {
      forget.push(record.address); // its marker decides: kept by its address, or pruned below
      continue;
    }
    if (obj && !claimed.has(obj.id)) {
      claimed.set(obj.id, record.address);
      orphans.push({ address: record.address, kind: record.kind, live: obj, record, via: "state" });
    } else if (!obj && (live.listedKinds.has(record.kind) || live.readIds.has(record.id)))
      forget.push(record.address);
    else if (obj) forget.push(record.address); // the object now belongs to another address
  }
  for (const [address, list] of marked) {
    const obj = list[0] as LiveObject;
    if (wanted.has(address) || claimed.has(obj.id)) continue;
    claimed.set(obj.id, address);
    orphans.push({ address, kind: obj.kind, live: obj, via: "marker" });
  }
  orphans.sort((a, b) => a.address.localeCompare(b.address));
  return { orphans, forget: forget.sort() };
}

/**
 * Leaves one object per address in `marked` (rule 4) and returns the others as duplicates. Kept: the
 * object the state records for the address, else the oldest of the address's own kind (each list
 * holds those first, see markedObjects). Objects of another kind than the kept one (a marker copied
 * by hand) are duplicates too. An address that rule 2 gave an object without its marker (a move, a
 * marker still to add) keeps that object: every marked object of the address is a duplicate, and the
 * address leaves `marked`.
 * @param claimed object id -> address, of the objects rule 2 matched
 */
function splitDuplicates(
  marked: Map<string, LiveObject[]>,
  state: StateSnapshot,
  claimed: ReadonlyMap<string, string>,
): Duplicate[] {
  const duplicates: Duplicate[] = [];
  const unmarkedKept = new Map<string, string>();
  for (const [id, address] of claimed) {
    if (marked.has(address) && !marked.get(address)?.some((o) => o.id === id)) unmarkedKept.set(address, id);
  }
  for (const [address, keptId] of unmarkedKept) {
    for (const o of marked.get(address) ?? [])
      duplicates.push({ address, kind: o.kind, live: o, keptId, keptBecause: "state" });
    marked.delete(address);
  }
  for (const [address, list] of marked) {
    if (list.length < 2) continue;
    const recorded = state.resources[address]?.id;
    const byState = list.find((o) => o.id === recorded);
    const sameKind = list.filter((o) => o.kind === (list[0] as LiveObject).kind);
    const keep = byState ?? [...sameKind].sort(olderFirst)[0];
    if (!keep) continue;
    marked.set(address, [keep]);
    for (const o of list) {
      if (o === keep) continue;
      const keptBecause = byState ? "state" : "oldest";
      duplicates.push({ address, kind: o.kind, live: o, keptId: keep.id, keptBecause });
    }
  }
  return duplicates.sort((a, b) => a.address.localeCompare(b.address) || a.live.id.localeCompare(b.live.id));
}

function olderFirst(a: LiveObject, b: LiveObject): number {
  const ta = typeof a.raw.created_at === "string" ? a.raw.created_at : "";
  const tb = typeof b.raw.created_at === "string" ? b.raw.created_at : "";
  return ta.localeCompare(tb) || a.id.localeCompare(b.id);
}

/**
 * Objects carrying this stack's marker with a lineage other than the state's, that the state does not
 * record (another workspace's state wrote them): counted per lineage, undefined when there are none.
 * Markers without a lineage (written before tgw recorded it) match any lineage.
 */
export function foreignLineages(input: {
  desired: Pick<DesiredState, "stack" | "ownership">;
  live: LiveState;
  state: StateSnapshot;
}): ForeignLineages | undefined {
  const { desired, live, state } = input;
  if (desired.ownership !== "marker") return undefined;
  // Made at the first object with another lineage: usually there is none.
  let recorded: Set<string> | undefined;
  const counts = new Map<string, number>();
  for (const o of live.objects.values()) {
    const lineage = o.marker?.stack === desired.stack ? o.marker.lineage : undefined;
    if (lineage === undefined || lineage === state.lineage) continue;
    recorded ??= new Set(Object.values(state.resources).map((r) => r.id));
    if (recorded.has(o.id)) continue;
    counts.set(lineage, (counts.get(lineage) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const others = [...counts].map(([lineage, objects]) => ({ lineage, objects }));
  return { lineage: state.lineage, others: others.sort((a, b) => a.lineage.localeCompare(b.lineage)) };
}

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
