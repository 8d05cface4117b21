/**
 * Pending creates (docs/state.md > Pending creates), as Pulumi's pending operations: before an apply
 * sends its first create, it writes one record per create at `<address>#pending`, whose id is a random
 * create id that the create call also puts in the object's ownership marker. A run cut off anywhere
 * (SIGKILL, a lost answer, a crash) thus leaves a state that names every create that may have
 * happened, and the next run resolves each by its create id, before planning:
 *
 * - found: the object is recorded at the address (the oldest, when a retried call made several: the
 *   others are deleted as duplicates); an API key found so is recorded with its token delivered to
 *   `nobody` (the answer holding it was lost), and the plan deletes it and creates it again, saying so;
 * - not found: the pending record is dropped, and the plan creates the object as it would anyway;
 * - a record of the address that still holds its object (a create-first replace cut off before its
 *   create: the old object, also recorded as deposed) keeps it: the deposed record is dropped.
 *
 * Pure: no I/O. Without ownership markers there is no create id to look for: no pending record is
 * written.
 */
import { randomBytes } from "node:crypto";
import type { StateRecord, StateSnapshot } from "../state/store.js";
import type { LiveObject, LiveState } from "./live.js";
import { DEPOSED_SUFFIX, olderFirst } from "./ownership.js";

/** Suffix of the state address that records a create about to be sent (its id is the create id). */
export const PENDING_SUFFIX = "#pending";

/** A new create id: 16 hex digits (model/metadata.ts MARKER_CREATE_PLACEHOLDER). */
export function newCreateId(): string {
  return randomBytes(8).toString("hex");
}

/** The pending record of a create of `record.address` with `createId` (the record as it will be, id aside). */
export function pendingRecord(record: StateRecord, createId: string): StateRecord {
  return { ...record, address: record.address + PENDING_SUFFIX, id: createId };
}

/** Plan address of a duplicate's removal: `<address>#duplicate:<id>` (never a state address). */
export const DUPLICATE_SUFFIX = "#duplicate:";

/** A second live object made by one pending create whose kept object is `keptId`: to delete. */
export interface Duplicate {
  address: string;
  kind: string;
  live: LiveObject;
  keptId: string;
}

/** What resolving the pending creates of a state gives. */
export interface Resolved {
  /** The state without pending records, with the objects they made recorded. */
  state: StateSnapshot;
  /** State addresses to drop when the apply writes (`#pending`, and deposed records of nothing). */
  drop: string[];
  /** Records made from pending creates, to write before any call. */
  recovered: StateRecord[];
  /** Further objects of one pending create. */
  duplicates: Duplicate[];
}

/**
 * Resolves the pending creates of `state` against `live` (which must list each pending record's kind).
 * @param returnsToken whether a kind's create returns a token (model/token-file.ts)
 */
export function resolvePending(
  stack: string,
  state: StateSnapshot,
  live: LiveState,
  returnsToken: (kind: string) => boolean,
): Resolved {
  const out: Resolved = { state, drop: [], recovered: [], duplicates: [] };
  const pending = Object.values(state.resources).filter(
    (r) => r.address.endsWith(PENDING_SUFFIX) || r.address.endsWith(DEPOSED_SUFFIX),
  );
  if (pending.length === 0) return out;
  const byCreate = new Map<string, LiveObject[]>();
  for (const o of live.objects.values()) {
    const create = o.marker?.stack === stack ? o.marker.create : undefined;
    if (create !== undefined) byCreate.set(create, [...(byCreate.get(create) ?? []), o]);
  }
  const resources = { ...state.resources };
  for (const p of pending) {
    if (!p.address.endsWith(PENDING_SUFFIX)) continue;
    const address = p.address.slice(0, -PENDING_SUFFIX.length);
    delete resources[p.address];
    out.drop.push(p.address);
    const found = (byCreate.get(p.id) ?? []).filter((o) => o.kind === p.kind).sort(olderFirst);
    const record = resources[address];
    const deposed = resources[address + DEPOSED_SUFFIX];
    const held = record !== undefined && record.id !== deposed?.id && live.objects.has(record.id);
    const keep = held ? undefined : found[0];
    for (const o of found) {
      if (o !== keep)
        out.duplicates.push({
          address,
          kind: o.kind,
          live: o,
          keptId: keep?.id ?? (record as StateRecord).id,
        });
    }
    if (keep) {
      const recovered: StateRecord = { ...p, address, id: keep.id };
      if (returnsToken(p.kind)) recovered.tokenDelivered = { to: "nobody" };
      resources[address] = recovered;
      out.recovered.push(recovered);
    }
  }
  // A deposed record holding the object its address still records: the replace never created.
  for (const d of pending) {
    if (!d.address.endsWith(DEPOSED_SUFFIX)) continue;
    const record = resources[d.address.slice(0, -DEPOSED_SUFFIX.length)];
    if (record?.id === d.id) {
      delete resources[d.address];
      out.drop.push(d.address);
    }
  }
  out.state = { ...state, resources };
  return out;
}
