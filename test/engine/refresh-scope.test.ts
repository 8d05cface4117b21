/**
 * What a refresh reads (src/engine/refresh.ts `refreshScope`, docs/state.md > What a refresh reads),
 * checked on random states and configurations against the rules: every recorded object and every
 * `import:` entry's object is read (by its kind's list or its own GET), a kind is GET one object at a
 * time only when that costs fewer requests than its remembered pages, and with markers every kind
 * that may hold an unrecorded marked object is listed whole (a `removed:` entry's too).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listingAfter, readsByGet, unrecordedKinds } from "../../src/engine/listing.js";
import { emptyLiveState, liveObject } from "../../src/engine/live.js";
import { refreshScope } from "../../src/engine/refresh.js";
import { collections } from "../../src/model/index.js";
import { EVERY_KIND } from "../../src/state/index.js";
import type { StateListing, StateRecord, StateSnapshot } from "../../src/state/store.js";
import { desired, res, state } from "./builders.js";

const kinds = [...collections().values()];
const kindIndex = fc.integer({ min: 0, max: kinds.length - 1 });

/** A random stack: records and configured addresses over every collection kind, and a listing. */
const world = fc.record({
  records: fc.array(fc.tuple(kindIndex, fc.nat(30)), { maxLength: 25 }),
  configured: fc.array(fc.tuple(kindIndex, fc.nat(30)), { maxLength: 25 }),
  imports: fc.array(fc.tuple(kindIndex, fc.nat(30)), { maxLength: 3 }),
  removed: fc.array(fc.tuple(kindIndex, fc.nat(30)), { maxLength: 3 }),
  counts: fc.dictionary(fc.constantFrom(...kinds.map((k) => k.kind)), fc.nat(2_500)),
  unrecorded: fc.option(fc.subarray([...kinds.map((k) => k.kind), EVERY_KIND]), { nil: undefined }),
  serial: fc.nat(3),
  ownership: fc.constantFrom("marker" as const, "state-only" as const),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

function build(w: World) {
  const address = ([k, n]: [number, number], prefix = "r") =>
    `${kinds[k]?.collection as string}.${prefix}${n}`;
  const records: StateRecord[] = w.records.map((r) => ({
    address: address(r),
    kind: kinds[r[0]]?.kind as string,
    id: `id-${address(r)}`,
    fingerprint: "0".repeat(64),
    appliedAt: "2026-11-28T00:00:00.000Z",
  }));
  const snapshot: StateSnapshot = {
    ...state(records, w.serial),
    ...(w.unrecorded === undefined
      ? {}
      : { listing: { counts: w.counts, unrecorded: w.unrecorded } satisfies StateListing }),
  };
  const imported = w.imports.map((i) => res(address(i, "imported")));
  const configured = new Set(w.configured.map((c) => address(c)));
  const removed = [...new Set(w.removed.map((r) => address(r)))].filter((a) => !configured.has(a)).sort();
  const config = {
    ...desired([...w.configured.map((c) => res(address(c))), ...imported], w.ownership),
    imports: imported.map((r) => ({ to: r.address, id: `existing-${r.address}` })),
    ...(removed.length > 0 ? { removed } : {}),
  };
  return { snapshot, config, records };
}

describe("refreshScope", () => {
  it("reads every object the plan needs, by GET only where that is cheaper, and lists every kind that may hide a marked object", () => {
    fc.assert(
      fc.property(world, (w) => {
        const { snapshot, config, records } = build(w);
        const scope = refreshScope(config, snapshot);
        const listed = new Set(scope.kinds);
        const got = new Map<string, string[]>();
        for (const o of scope.objects) got.set(o.kind, [...(got.get(o.kind) ?? []), o.id]);
        for (const kind of got.keys()) expect(listed.has(kind)).toBe(false);
        const needed = [
          ...records.map((r) => [r.kind, r.id] as const),
          ...(config.imports ?? []).map(
            (i) => [config.resources.find((r) => r.address === i.to)?.kind as string, i.id] as const,
          ),
        ];
        for (const [kind, id] of needed) expect(listed.has(kind) || got.get(kind)?.includes(id)).toBe(true);
        for (const [kind, ids] of got) {
          expect(readsByGet(ids.length, snapshot.listing?.counts[kind])).toBe(true);
          expect(ids.length).toBeLessThan(Math.ceil((snapshot.listing?.counts[kind] ?? 0) / 100));
        }
        for (const r of config.resources) if (!got.has(r.kind)) expect(listed.has(r.kind)).toBe(true);
        if (config.ownership === "marker") {
          for (const kind of unrecordedKinds(snapshot)) expect(listed.has(kind)).toBe(true);
          for (const r of config.resources)
            if (snapshot.resources[r.address] === undefined) expect(listed.has(r.kind)).toBe(true);
          // A `removed:` entry, recorded or not: another workspace's object may carry its marker.
          for (const a of config.removed ?? [])
            expect(listed.has(collections().get(a.split(".")[0] as string)?.kind as string)).toBe(true);
          if (snapshot.serial === 0 || snapshot.listing === undefined || w.unrecorded?.includes(EVERY_KIND))
            expect(listed.size).toBe(kinds.length);
        }
      }),
    );
  });

  it("keeps a kind unrecorded until a read lists it (creates mark none: they are pending records)", () => {
    const snapshot: StateSnapshot = {
      ...state([], 3),
      listing: { counts: { api_key: 5 }, unrecorded: ["api_key", "tls_certificate"] },
    };
    const read = emptyLiveState();
    read.objects.set("ak_1", liveObject("api_key", "ak_1", { id: "ak_1" }));
    read.listedKinds.add("api_key");
    expect(listingAfter(snapshot, read)).toEqual({
      counts: { api_key: 1 },
      unrecorded: ["tls_certificate"],
    });
    // A read kept from an earlier one (tgw watch) may predate the creates: it clears nothing.
    expect(listingAfter(snapshot, { ...read, kept: true }).unrecorded).toEqual([
      "api_key",
      "tls_certificate",
    ]);
  });

  it("lists the kind of a removed: entry that has a record, in an account where GETs cost less", () => {
    const record: StateRecord = {
      address: "api_keys.old",
      kind: "api_key",
      id: "ak_old",
      fingerprint: "0".repeat(64),
      appliedAt: "2026-12-07T00:00:00.000Z",
    };
    const snapshot: StateSnapshot = {
      ...state([record], 3),
      listing: { counts: { api_key: 5_000 }, unrecorded: [] },
    };
    // Another workspace's object may carry api_keys.old's marker: the entry takes it out too.
    const scope = refreshScope({ ...desired([], "marker"), removed: ["api_keys.old"] }, snapshot);
    expect(scope.kinds).toEqual(["api_key"]);
    expect(refreshScope(desired([], "marker"), snapshot).kinds).toEqual([]);
  });
});
