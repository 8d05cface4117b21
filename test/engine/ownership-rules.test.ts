/**
 * Table tests of identity (src/engine/ownership.ts, ./pending.ts, ./moves.ts; docs/state.md >
 * Identity), DNSControl `pkg/diff2` style. First every row of the one decision function `decide`;
 * then scenarios through the pure `makePlan`: each row is (desired addresses, live objects with their
 * markers, state records, options) -> the plan's (address, action, reason) rows, the state addresses
 * it forgets, the ids it deletes, the addresses it adopts, the claims it refuses and the unrecorded
 * objects it leaves alone. No server.
 */
import { describe, expect, it } from "vitest";
import type { Change } from "../../src/engine/action.js";
import { emptyLiveState, type LiveState, liveObject } from "../../src/engine/live.js";
import type { Move } from "../../src/engine/moves.js";
import { type AddressFacts, type Decision, decide } from "../../src/engine/ownership.js";
import { PENDING_SUFFIX, pendingRecord } from "../../src/engine/pending.js";
import { makePlan } from "../../src/engine/plan.js";
import { deposedRecord } from "../../src/engine/records.js";
import { collections, encodeMetadata, type OwnershipMarker } from "../../src/model/index.js";
import type { StateRecord } from "../../src/state/store.js";
import { desired, pathOf, recordOf, res, STACK, state } from "./builders.js";

// ---------------------------------------------------------------------------------------------------
// Helpers: each row reads as data.

/** A module address (compression of one route): its identity is its API path. */
const M = "edges.https.edghts_1.routes.edghtsrt_1.compression";
const M_PATH = pathOf(res(M));
const OTHER = "other";
const TF = `terraform:${STACK}`;
/** The lineage of the state `state()` builds, and another workspace's. */
const LINEAGE = "lineage-1";
const FOREIGN = "lineage-0";
const T1 = "2024-01-01T00:00:00Z";
const T2 = "2024-02-01T00:00:00Z";

/** This stack's marker for `address` (no lineage unless given: matches any). */
const mine = (address: string, lineage?: string): OwnershipMarker =>
  lineage === undefined ? { stack: STACK, address } : { stack: STACK, address, lineage };
/** This stack's marker for `address`, written with `lineage` (default this state's) at state serial `serial`. */
const written = (address: string, serial: number, lineage = LINEAGE): OwnershipMarker => ({
  stack: STACK,
  address,
  lineage,
  serial,
});
/** The marker a create call of `address` writes, with its create id. */
const creating = (address: string, create: string, serial = 1): OwnershipMarker => ({
  ...written(address, serial),
  create,
});
/** Another tgw stack's marker. */
const theirs = (address: string): OwnershipMarker => ({ stack: OTHER, address });
/** The marker the Terraform provider writes for this stack's name. */
const terraform = (address: string): OwnershipMarker => ({ stack: TF, address });

type LiveSpec =
  | { object: { kind: string; id: string; raw: Record<string, unknown> } }
  | { module: string; raw: Record<string, unknown> }
  | { absent: string };

const kindOfId = (id: string): string => {
  if (id.startsWith("ak_")) return "api_key";
  if (id.startsWith("bkdtg_")) return "tunnel_group_backend";
  throw new Error(`no kind for id ${id}`);
};

/**
 * A live collection object (kind from the id's prefix: `ak_` API key, `bkdtg_` backend) as the server
 * returns it, equal to the desired resource `want` builds, carrying `marker` in its metadata.
 */
function obj(
  id: string,
  marker?: OwnershipMarker,
  opts: { created?: string; description?: string } = {},
): LiveSpec {
  const kind = kindOfId(id);
  const raw: Record<string, unknown> = {
    id,
    description: opts.description ?? "",
    metadata: marker ? encodeMetadata(undefined, marker) : "",
    created_at: opts.created ?? T1,
  };
  if (kind === "api_key") Object.assign(raw, { uri: `/api_keys/${id}`, token: null, owner_id: "usr_1" });
  else Object.assign(raw, { uri: `/backends/tunnel_group/${id}`, labels: {}, tunnels: [] });
  return { object: { kind, id, raw } };
}

/** The module `address` set at its path (`enabled` as desired unless given). */
const mod = (address: string, enabled = true): LiveSpec => ({ module: address, raw: { enabled } });
/** The module `address` read and not set (GET answered 404). */
const unset = (address: string): LiveSpec => ({ absent: address });

/** The desired resource at `address`, fields equal to the live objects `obj` and `mod` build. */
const want = (address: string) => res(address, address.startsWith("edges.") ? { enabled: true } : {});

/**
 * The state record of `address` (the id defaults to a module's path); `x#deposed` is the record a
 * create-first replace keeps of the old object.
 */
function rec(address: string, id?: string): StateRecord {
  if (address.endsWith(PENDING_SUFFIX)) {
    const base = address.slice(0, -PENDING_SUFFIX.length);
    return pendingRecord(recordOf(want(base), id as string), id as string);
  }
  const base = address.replace(/#deposed$/, "");
  const r = want(base);
  const recordId = id ?? pathOf(r);
  return address === base ? recordOf(r, recordId) : deposedRecord(base, r.kind, recordId, new Date(0));
}

function liveOf(specs: LiveSpec[], unlisted: string[]): LiveState {
  const l = emptyLiveState();
  for (const k of collections().values()) if (!unlisted.includes(k.kind)) l.listedKinds.add(k.kind);
  for (const s of specs) {
    if ("object" in s) l.objects.set(s.object.id, liveObject(s.object.kind, s.object.id, s.object.raw));
    else if ("module" in s) {
      const r = want(s.module);
      l.modules.set(pathOf(r), liveObject(r.kind, pathOf(r), s.raw));
      l.readModules.add(pathOf(r));
    } else l.readModules.add(pathOf(want(s.absent)));
  }
  return l;
}

type Expected = [address: string, action: Change["action"], reason: string];

interface Row {
  name: string;
  desired: string[];
  live?: LiveSpec[];
  state?: StateRecord[];
  /** The state's serial; default 1 with records, else 0. */
  serial?: number;
  ownership?: "marker" | "state-only";
  moves?: Move[];
  /** `removed:` entries. */
  removed?: string[];
  destroy?: boolean;
  /** Kinds the refresh did not list completely. */
  unlisted?: string[];
  /** The plan's changes, sorted by address. */
  expect: Expected[];
  /** `plan.forget`; default none. */
  forget?: string[];
  /** Ids of the objects the plan deletes (deletes and duplicates), sorted; default none. */
  deletes?: string[];
  /** Addresses whose change is `adopted` (found by marker); default none. */
  adopted?: string[];
  /** `plan.foreignLineages.others`: claims the state has not seen (refused without takeover); default none. */
  foreign?: { lineage: string; objects: number; serial: number; newer?: true }[];
  /** State claims taken over earlier (`StateSnapshot.claims`). */
  claims?: Record<string, number>;
  /** Ids of the unrecorded marked objects left alone; default none. */
  unmanaged?: string[];
  /** Addresses of the records the plan recovers from pending creates; default none. */
  recover?: string[];
}

function outcome(row: Row) {
  const plan = makePlan({
    desired: {
      ...desired(row.desired.map(want), row.ownership ?? "marker"),
      ...(row.removed ? { removed: row.removed } : {}),
    },
    live: liveOf(row.live ?? [], row.unlisted ?? []),
    state: {
      ...(row.serial === undefined ? state(row.state ?? []) : state(row.state ?? [], row.serial)),
      ...(row.claims ? { claims: row.claims } : {}),
    },
    ...(row.moves ? { moves: row.moves } : {}),
    ...(row.destroy ? { destroy: true } : {}),
  });
  expect(plan.foreignLineages?.lineage ?? LINEAGE).toBe(LINEAGE);
  return {
    rows: plan.changes.map((c): Expected => [c.address, c.action, c.reason]),
    forget: plan.forget,
    deletes: plan.changes
      .filter((c) => c.action === "delete")
      .map((c) => c.id as string)
      .sort(),
    adopted: plan.changes.filter((c) => c.adopted === true).map((c) => c.address),
    foreign: plan.foreignLineages?.others ?? [],
    unmanaged: (plan.unmanaged ?? []).map((u) => u.id),
    recover: (plan.recover ?? []).map((r) => r.address),
  };
}

function expected(row: Row) {
  return {
    rows: row.expect,
    forget: row.forget ?? [],
    deletes: row.deletes ?? [],
    adopted: row.adopted ?? [],
    foreign: row.foreign ?? [],
    unmanaged: row.unmanaged ?? [],
    recover: row.recover ?? [],
  };
}

const UP_TO_DATE = "up to date";
const RECOVERED = "recovered from its ownership marker";
const NOT_LIVE = "not in live state";
const DRIFT_GONE = "deleted outside tgw (drift)";
const MARKER_MISSING = "the ownership marker is missing";
const REMOVED = "no longer in the configuration";
const CUT_OFF = "the old object of a replace that was cut off";
const LET_GO = "removed: its ownership marker is taken out of its metadata, its state record dropped";
const REISSUE =
  "made by an apply that was cut off before the answer holding its token arrived: nobody has its token, so it is deleted and created again";
const duplicateOf = (address: string, kept: string) =>
  `duplicate: the same create of ${address} made it and ${kept}, which is kept`;
const A = "api_keys.a";
const B = "api_keys.b";
const TA = "tunnel_group_backends.a";

// ---------------------------------------------------------------------------------------------------
// Every row of `decide`: (configured, removed, record, marked) -> decision.

const D = (
  configured: boolean,
  removed: boolean,
  record: AddressFacts["record"],
  marked: boolean,
  decision: Decision,
): [AddressFacts, Decision] => [{ configured, removed, record, marked }, decision];

const decisions: [AddressFacts, Decision][] = [
  D(true, false, "none", false, "create"),
  D(true, false, "none", true, "adopt"),
  D(true, false, "live", false, "keep"),
  D(true, false, "live", true, "keep"),
  D(true, false, "gone", false, "create"),
  D(true, false, "gone", true, "adopt"),
  D(true, false, "taken", false, "create"),
  D(true, false, "taken", true, "adopt"),
  // A configured address a `removed:` entry names too is refused by the configuration's checks;
  // the decision ignores the entry.
  D(true, true, "none", false, "create"),
  D(true, true, "none", true, "adopt"),
  D(true, true, "live", false, "keep"),
  D(true, true, "live", true, "keep"),
  D(true, true, "gone", false, "create"),
  D(true, true, "gone", true, "adopt"),
  D(true, true, "taken", false, "create"),
  D(true, true, "taken", true, "adopt"),
  D(false, false, "none", false, "none"),
  D(false, false, "none", true, "none"),
  D(false, false, "live", false, "delete"),
  D(false, false, "live", true, "delete"),
  D(false, false, "gone", false, "forget"),
  D(false, false, "gone", true, "forget"),
  D(false, false, "taken", false, "forget"),
  D(false, false, "taken", true, "forget"),
  D(false, true, "none", false, "none"),
  D(false, true, "none", true, "let-go"),
  D(false, true, "live", false, "let-go"),
  D(false, true, "live", true, "let-go"),
  D(false, true, "gone", false, "forget"),
  D(false, true, "gone", true, "forget"),
  D(false, true, "taken", false, "forget"),
  D(false, true, "taken", true, "forget"),
];

describe("decide: every row", () => {
  it("covers every combination of the facts once", () => {
    const keys = new Set(decisions.map(([f]) => JSON.stringify(f)));
    expect(keys.size).toBe(2 * 2 * 4 * 2);
    expect(decisions.length).toBe(keys.size);
  });
  for (const [facts, decision] of decisions) {
    it(`${JSON.stringify(facts)} -> ${decision}`, () => expect(decide(facts)).toBe(decision));
  }
  it("deletes only a record whose address is neither configured nor kept", () => {
    for (const [facts] of decisions)
      if (decide(facts) === "delete")
        expect([facts.configured, facts.removed, facts.record]).toEqual([false, false, "live"]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Scenarios through makePlan.

const groups: Record<string, Row[]> = {
  "modules: identity by path": [
    {
      name: "module in desired and live, no state -> no-op, not adopted",
      desired: [M],
      live: [mod(M)],
      expect: [[M, "no-op", UP_TO_DATE]],
    },
    {
      name: "module in desired, not set, no state -> put",
      desired: [M],
      live: [unset(M)],
      expect: [[M, "put", "the module is not set"]],
    },
    {
      name: "module in desired, recorded, not set any more -> put (drift)",
      desired: [M],
      live: [unset(M)],
      state: [rec(M)],
      expect: [[M, "put", DRIFT_GONE]],
    },
    {
      name: "module removed from config, recorded, set -> deleted",
      desired: [],
      live: [mod(M)],
      state: [rec(M)],
      expect: [[M, "delete", REMOVED]],
      deletes: [M_PATH],
    },
    {
      name: "module removed from config, not recorded, set -> untouched",
      desired: [],
      live: [mod(M)],
      expect: [],
    },
    {
      name: "module recorded, not in config, not set -> forgotten",
      desired: [],
      live: [unset(M)],
      state: [rec(M)],
      expect: [],
      forget: [M],
    },
    {
      name: "module recorded, not in config, not read -> kept in the state",
      desired: [],
      state: [rec(M)],
      expect: [],
    },
  ],

  "the record decides": [
    {
      name: "record, object alive with its marker -> no-op",
      desired: [A],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(A, "ak_1")],
      expect: [[A, "no-op", UP_TO_DATE]],
    },
    {
      name: "record, object without a marker -> the update writes it",
      desired: [A],
      live: [obj("ak_1")],
      state: [rec(A, "ak_1")],
      expect: [[A, "update", MARKER_MISSING]],
    },
    {
      name: "record of b, object still marked a (tgw state mv a b), both configured -> b's, marker rewritten; a made",
      desired: [A, B],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(B, "ak_1")],
      serial: 2,
      expect: [
        [A, "create", NOT_LIVE],
        [B, "update", MARKER_MISSING],
      ],
    },
    {
      name: "tgw state mv a b, configuration still a -> as the state says: b deleted, a created (shown before anything happens)",
      desired: [A],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(B, "ak_1")],
      serial: 2,
      expect: [
        [A, "create", NOT_LIVE],
        [B, "delete", REMOVED],
      ],
      deletes: ["ak_1"],
    },
    {
      name: "record whose object is gone -> made again (drift)",
      desired: [A],
      live: [],
      state: [rec(A, "ak_1")],
      expect: [[A, "create", DRIFT_GONE]],
    },
    {
      name: "record whose object carries another stack's marker -> that stack's; made again here",
      desired: [A],
      live: [obj("ak_1", theirs(A))],
      state: [rec(A, "ak_1")],
      expect: [[A, "create", `ak_1 now belongs to stack "${OTHER}"`]],
    },
    {
      name: "record, not configured, object alive -> deleted",
      desired: [],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(A, "ak_1")],
      expect: [[A, "delete", REMOVED]],
      deletes: ["ak_1"],
    },
    {
      name: "record, not configured, object gone -> forgotten",
      desired: [],
      live: [],
      state: [rec(A, "ak_1")],
      expect: [],
      forget: [A],
    },
    {
      name: "record, not configured, object of another stack now -> forgotten, not deleted",
      desired: [],
      live: [obj("ak_1", theirs(A))],
      state: [rec(A, "ak_1")],
      expect: [],
      forget: [A],
    },
    {
      name: "record, not configured, its kind not read -> kept as it is",
      desired: [],
      state: [rec(A, "ak_1")],
      unlisted: ["api_key"],
      expect: [],
    },
  ],

  "unrecorded objects carrying this stack's marker": [
    {
      name: "marked for a configured address without a record (tgw state rm, still configured) -> adopted",
      desired: [A],
      live: [obj("ak_1", written(A, 1))],
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
    },
    {
      name: "marked for an address gone from the configuration (tgw state rm, then deleted from the YAML) -> left alone",
      desired: [],
      live: [obj("ak_1", written(A, 1))],
      serial: 3,
      expect: [],
      unmanaged: ["ak_1"],
    },
    {
      name: "a marker without lineage (written before tgw recorded it) is a known claim -> adopted",
      desired: [A],
      live: [obj("ak_1", mine(A))],
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
    },
    {
      name: "two objects marked for one address -> the oldest adopted, the other left alone",
      desired: [A],
      live: [obj("ak_2", written(A, 1), { created: T1 }), obj("ak_1", written(A, 1), { created: T2 })],
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
      unmanaged: ["ak_1"],
    },
    {
      name: "marked for the address of a recorded object -> the record's object; the other left alone",
      desired: [A],
      live: [obj("ak_1", written(A, 1)), obj("ak_2", written(A, 2))],
      state: [rec(A, "ak_1")],
      serial: 3,
      expect: [[A, "no-op", UP_TO_DATE]],
      unmanaged: ["ak_2"],
    },
    {
      name: "marked for an address a removed: entry names, no record -> let go (its marker taken out)",
      desired: [],
      removed: [A],
      live: [obj("ak_1", written(A, 1))],
      serial: 3,
      expect: [[A, "forget", LET_GO]],
    },
    {
      name: "an object of another kind marked for the address -> not adopted, left alone",
      desired: [A],
      live: [obj("bkdtg_1", written(A, 1))],
      serial: 3,
      expect: [[A, "create", NOT_LIVE]],
      unmanaged: ["bkdtg_1"],
    },
    {
      name: "unmarked, another stack's and Terraform's objects are never touched",
      desired: [],
      live: [obj("ak_1"), obj("ak_2", theirs(A)), obj("ak_3", terraform(A))],
      serial: 3,
      expect: [],
    },
  ],

  "claims: a marker the state has not seen is counted; ./safety.ts refuses the plan unless --takeover": [
    {
      name: "this lineage, a serial above the state's (an older state copy put back) -> counted as newer; the plan shows the takeover",
      desired: [A],
      live: [obj("ak_1", written(A, 5))],
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
      foreign: [{ lineage: LINEAGE, objects: 1, serial: 5, newer: true }],
    },
    {
      name: "a recorded object with a newer marker -> counted too; the record still decides",
      desired: [A],
      live: [obj("ak_1", written(B, 5))],
      state: [rec(A, "ak_1")],
      serial: 3,
      expect: [[A, "update", MARKER_MISSING]],
      foreign: [{ lineage: LINEAGE, objects: 1, serial: 5, newer: true }],
    },
    {
      name: "another lineage (another workspace, or a lost state) -> counted; the plan shows the takeover",
      desired: [A],
      live: [obj("ak_1", written(A, 2, FOREIGN))],
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
      foreign: [{ lineage: FOREIGN, objects: 1, serial: 2 }],
    },
    {
      name: "another lineage taken over before, up to its serial -> a known claim: adopted, not counted",
      desired: [A],
      live: [obj("ak_1", written(A, 2, FOREIGN))],
      claims: { [FOREIGN]: 4 },
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
    },
    {
      name: "another lineage taken over before, a serial above it -> counted again",
      desired: [A],
      live: [obj("ak_1", written(A, 6, FOREIGN))],
      claims: { [FOREIGN]: 4 },
      serial: 3,
      expect: [[A, "no-op", RECOVERED]],
      adopted: [A],
      foreign: [{ lineage: FOREIGN, objects: 1, serial: 6 }],
    },
    {
      name: "another lineage, address not configured -> left alone, counted",
      desired: [],
      live: [obj("ak_1", written(A, 2, FOREIGN))],
      expect: [],
      unmanaged: ["ak_1"],
      foreign: [{ lineage: FOREIGN, objects: 1, serial: 2 }],
    },
  ],

  "pending creates: resolved by their create id": [
    {
      name: "found -> recorded (up to date), the pending record dropped",
      desired: [TA],
      live: [obj("bkdtg_1", creating(TA, "c1"))],
      state: [rec(`${TA}#pending`, "c1")],
      expect: [[TA, "no-op", UP_TO_DATE]],
      recover: [TA],
      forget: [`${TA}#pending`],
    },
    {
      name: "not found -> created, the pending record dropped",
      desired: [TA],
      live: [],
      state: [rec(`${TA}#pending`, "c1")],
      expect: [[TA, "create", NOT_LIVE]],
      forget: [`${TA}#pending`],
    },
    {
      name: "an API key found -> its token reached nobody: deleted and created again",
      desired: [A],
      live: [obj("ak_1", creating(A, "c1"))],
      state: [rec(`${A}#pending`, "c1")],
      expect: [[A, "replace", REISSUE]],
      recover: [A],
      forget: [`${A}#pending`],
    },
    {
      name: "found twice (a retried call) -> the oldest recorded, the other deleted as a duplicate",
      desired: [TA],
      live: [
        obj("bkdtg_2", creating(TA, "c1"), { created: T2 }),
        obj("bkdtg_1", creating(TA, "c1"), { created: T1 }),
      ],
      state: [rec(`${TA}#pending`, "c1")],
      expect: [
        [TA, "no-op", UP_TO_DATE],
        [`${TA}#duplicate:bkdtg_2`, "delete", duplicateOf(TA, "bkdtg_1")],
      ],
      recover: [TA],
      forget: [`${TA}#pending`],
      deletes: ["bkdtg_2"],
    },
    {
      name: "found, the address no longer configured -> recorded, then deleted",
      desired: [],
      live: [obj("bkdtg_1", creating(TA, "c1"))],
      state: [rec(`${TA}#pending`, "c1")],
      expect: [[TA, "delete", REMOVED]],
      recover: [TA],
      forget: [`${TA}#pending`],
      deletes: ["bkdtg_1"],
    },
    {
      name: "another create's id -> not this one's: left alone",
      desired: [TA],
      live: [obj("bkdtg_1", creating("tunnel_group_backends.z", "c9"))],
      state: [rec(`${TA}#pending`, "c1")],
      expect: [[TA, "create", NOT_LIVE]],
      forget: [`${TA}#pending`],
      unmanaged: ["bkdtg_1"],
    },
    {
      name: "a create-first replace cut off after the POST -> the new object recorded, the old deleted",
      desired: [TA],
      live: [obj("bkdtg_1", written(TA, 1)), obj("bkdtg_2", creating(TA, "c1", 2))],
      state: [rec(TA, "bkdtg_1"), rec(`${TA}#deposed`, "bkdtg_1"), rec(`${TA}#pending`, "c1")],
      serial: 2,
      expect: [
        [TA, "no-op", UP_TO_DATE],
        [`${TA}#deposed`, "delete", CUT_OFF],
      ],
      recover: [TA],
      forget: [`${TA}#pending`],
      deletes: ["bkdtg_1"],
    },
    {
      name: "a create-first replace cut off before the POST -> the old object stays the address's",
      desired: [TA],
      live: [obj("bkdtg_1", written(TA, 1))],
      state: [rec(TA, "bkdtg_1"), rec(`${TA}#deposed`, "bkdtg_1"), rec(`${TA}#pending`, "c1")],
      serial: 2,
      expect: [[TA, "no-op", UP_TO_DATE]],
      forget: [`${TA}#deposed`, `${TA}#pending`],
    },
  ],

  "moved: entries rewrite the state": [
    {
      name: "a recorded -> b's record, its marker rewritten, a forgotten",
      desired: [B],
      moves: [{ from: A, to: B }],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(A, "ak_1")],
      expect: [[B, "update", "moved from api_keys.a (its ownership marker is rewritten)"]],
      forget: [A],
    },
    {
      name: "from without a record, an unrecorded object marked a (known claim) -> adopted as b (the marker followed)",
      desired: [B],
      moves: [{ from: A, to: B }],
      live: [obj("ak_1", written(A, 1))],
      serial: 3,
      expect: [[B, "update", MARKER_MISSING]],
      adopted: [B],
    },
    {
      name: "from without a record or object -> nothing moves; b is made",
      desired: [B],
      moves: [{ from: A, to: B }],
      live: [],
      serial: 3,
      expect: [[B, "create", NOT_LIVE]],
    },
    {
      name: "a lost state and --takeover: the marker of a is followed to b",
      desired: [B],
      moves: [{ from: A, to: B }],
      live: [obj("ak_1", written(A, 2, FOREIGN))],
      expect: [[B, "update", MARKER_MISSING]],
      adopted: [B],
      foreign: [{ lineage: FOREIGN, objects: 1, serial: 2 }],
    },
  ],

  "removed: entries let go": [
    {
      name: "recorded and marked -> the marker taken out, the record dropped",
      desired: [],
      removed: [A],
      live: [obj("ak_1", written(A, 1))],
      state: [rec(A, "ak_1")],
      expect: [[A, "forget", LET_GO]],
    },
    {
      name: "recorded, no marker -> the record dropped",
      desired: [],
      removed: [A],
      live: [obj("ak_1")],
      state: [rec(A, "ak_1")],
      expect: [[A, "forget", "removed: its state record is dropped"]],
    },
  ],

  destroy: [
    {
      name: "recorded objects and modules deleted; unrecorded marked objects left alone; removed: still lets go",
      desired: [A, M],
      destroy: true,
      removed: [B],
      live: [
        obj("ak_1", written(A, 1)),
        obj("ak_2", written("api_keys.c", 1)),
        obj("ak_3", written(B, 1)),
        mod(M),
      ],
      state: [rec(A, "ak_1"), rec(B, "ak_3"), rec(M)],
      serial: 3,
      expect: [
        [A, "delete", "tgw destroy"],
        [B, "forget", LET_GO],
        [M, "delete", "tgw destroy"],
      ],
      deletes: [M_PATH, "ak_1"],
      unmanaged: ["ak_2"],
    },
  ],

  "ownership: state-only": [
    {
      name: "markers are neither read nor counted: the record decides, an unrecorded object is not seen",
      desired: [A, B],
      ownership: "state-only",
      live: [obj("ak_1", written(B, 1)), obj("ak_2", written(B, 9, FOREIGN))],
      state: [rec(A, "ak_1")],
      expect: [
        [A, "no-op", UP_TO_DATE],
        [B, "create", NOT_LIVE],
      ],
    },
  ],
};

describe("identity scenarios", () => {
  for (const [group, rows] of Object.entries(groups)) {
    describe(group, () => {
      for (const row of rows) it(row.name, () => expect(outcome(row)).toEqual(expected(row)));
    });
  }
});
