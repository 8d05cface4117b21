/**
 * The live state `tgw watch` keeps between reconciles, so that a reconcile caused only by a file edit
 * re-reads what the edit touches instead of listing every kind (docs/watch.md > "What a reconcile
 * re-reads").
 *
 * - A **full** read (startup, interval, retry, anything but a file change alone) is the engine's
 *   `refresh`; its result is kept, with the state serial it was planned against.
 * - A **partial** read (a file-change reconcile) starts from the kept live state and GETs again the
 *   objects of every address whose desired state changed (added, edited, removed) and of every address
 *   a reconcile changed since the kept read (its kept copy is older than the change). Kinds and module
 *   paths the kept read did not cover are read as a full refresh would.
 * - What is never trusted: `checkPlan` refuses a plan that would update, replace, put or delete an
 *   object this read did not GET again; the caller then reconciles again with a full read. So a kept
 *   copy can only make a file-change reconcile miss drift of an unchanged resource (healed by the next
 *   interval), never send a call chosen from stale data; a create is the one call planned from the kept
 *   copy (see docs/watch.md for why that is safe).
 * - The kept read is dropped when a reconcile fails, when the state was written by someone else (its
 *   serial moved), or when the stack, the ownership mode or `moved:` changed.
 */
import pLimit from "p-limit";
import type { Api } from "../client/index.js";
import {
  isChange,
  type LiveState,
  liveObject,
  type Plan,
  type RefreshScope,
  refresh,
} from "../engine/index.js";
import { modulePath } from "../engine/ownership.js";
import { readModule } from "../engine/refresh.js";
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { getKind } from "../model/index.js";
import type { StateSnapshot } from "../state/store.js";

/** Reads live state for one plan (the engine's `readLive` option). */
export type LiveReader = (
  scope: RefreshScope,
  state: StateSnapshot,
  signal?: AbortSignal,
) => Promise<LiveState>;

/** What the last read did, for the log and for `checkPlan`. */
export interface ReadReport {
  kind: "full" | "partial";
  /** Objects (ids) and module paths read again by a partial read. */
  reread: Set<string>;
}

/** The kept live state of one watcher. */
export class LiveCache {
  #live: LiveState | undefined;
  /** The state (lineage, serial) the kept read goes with. */
  #basis: { lineage: string; serial: number } | undefined;
  /** The desired state the kept read was reconciled with: stack settings and each resource's signature. */
  #settings: string | undefined;
  #signatures = new Map<string, string>();
  /** Addresses changed by reconciles since the kept read: their kept copies are out of date. */
  #dirty = new Set<string>();
  #last: ReadReport | undefined;

  constructor(
    private readonly api: Api,
    private readonly concurrency = 4,
  ) {}

  /** True when a partial read of `desired` is possible (a full read was kept and still applies). */
  canReadPartially(desired: DesiredState): boolean {
    return this.#live !== undefined && this.#settings === settingsOf(desired);
  }

  /** What the last read did. */
  get lastRead(): ReadReport | undefined {
    return this.#last;
  }

  /** A reader that refreshes fully and keeps the result. */
  full(): LiveReader {
    return async (scope, state, signal) => {
      const live = await refresh(this.api, scope, {
        concurrency: this.concurrency,
        ...(signal ? { signal } : {}),
      });
      this.#live = live;
      this.#basis = { lineage: state.lineage, serial: state.serial };
      this.#dirty.clear();
      this.#signatures.clear();
      this.#settings = undefined;
      this.#last = { kind: "full", reread: new Set() };
      return copy(live);
    };
  }

  /** A reader for a file-change reconcile of `desired`: partial when the kept read applies, else full. */
  partial(desired: DesiredState): LiveReader {
    return async (scope, state, signal) => {
      const kept = this.#live;
      const basis = this.#basis;
      const sameState = basis?.lineage === state.lineage && basis.serial === state.serial;
      if (!kept || !sameState || this.#settings !== settingsOf(desired)) {
        return this.full()(scope, state, signal);
      }
      const { ids, paths } = this.#toReread(desired, state, kept);
      // Past one GET per list page, a full refresh costs fewer requests.
      if (ids.size + paths.size > kept.objects.size / 100 + kept.listedKinds.size + 10) {
        return this.full()(scope, state, signal);
      }
      const reread = new Set<string>();
      const covered = (kind: string, id: string) => kept.listedKinds.has(kind) || kept.readIds.has(id);
      const missing: RefreshScope = {
        kinds: scope.kinds.filter((k) => !kept.listedKinds.has(k)),
        objects: scope.objects.filter((o) => !covered(o.kind, o.id) && !ids.has(o.id)),
        modules: scope.modules.filter((m) => !kept.readModules.has(m.path) || paths.has(m.path)),
      };
      const limit = pLimit(this.concurrency);
      const [, read] = await Promise.all([
        Promise.all(
          [...ids].map(([id, kind]) =>
            limit(async () => {
              const path = `${getKind(kind).path}/${encodeURIComponent(id)}`;
              const body = await readModule(this.api, path, signal);
              reread.add(id);
              // The kept read is brought up to date: what was read again is no longer out of date.
              if (body) kept.objects.set(id, liveObject(kind, id, body));
              else kept.objects.delete(id);
              kept.readIds.add(id);
            }),
          ),
        ),
        refresh(this.api, missing, { concurrency: this.concurrency, ...(signal ? { signal } : {}) }),
      ]);
      merge(kept, read, missing);
      for (const m of missing.modules) reread.add(m.path);
      for (const o of read.objects.values()) reread.add(o.id);
      this.#dirty.clear();
      this.#last = { kind: "partial", reread };
      return { ...copy(kept), kept: true };
    };
  }

  /**
   * Whether `plan` may be applied after the last read: a full read always; a partial one when every
   * update, replace, put and delete is of an object it read again.
   */
  checkPlan(plan: Plan): boolean {
    const last = this.#last;
    if (!last || last.kind === "full") return true;
    return plan.changes.every(
      (c) => !isChange(c.action) || c.action === "create" || (c.id !== undefined && last.reread.has(c.id)),
    );
  }

  /**
   * Records a successful reconcile of `desired` that ended at `state` and planned `plan`: the
   * addresses it changed are read again by the next partial read.
   */
  succeeded(desired: DesiredState, plan: Plan, state: StateSnapshot): void {
    if (!this.#live) return;
    for (const c of plan.changes) if (isChange(c.action)) this.#dirty.add(c.address.split("#")[0] as string);
    this.#basis = { lineage: state.lineage, serial: state.serial };
    this.#settings = settingsOf(desired);
    this.#signatures = signaturesOf(desired);
  }

  /** Drops the kept read (after a failure): the next read is full. */
  invalidate(): void {
    this.#live = undefined;
    this.#basis = undefined;
    this.#last = undefined;
  }

  /** Objects (id -> kind) and module paths to GET again for `desired`. */
  #toReread(desired: DesiredState, state: StateSnapshot, kept: LiveState) {
    const changed = new Set(this.#dirty);
    const now = new Map(desired.resources.map((r) => [r.address, r]));
    for (const [address, sig] of signaturesOf(desired))
      if (this.#signatures.get(address) !== sig) changed.add(address);
    for (const address of this.#signatures.keys()) if (!now.has(address)) changed.add(address);
    const ids = new Map<string, string>();
    const paths = new Set<string>();
    const add = (kind: string, id: string) => {
      if (getKind(kind).module) paths.add(id);
      else ids.set(id, kind);
    };
    for (const address of changed) {
      const record = state.resources[address];
      if (record) add(record.kind, record.id);
      const r = now.get(address);
      if (r && getKind(r.kind).module) paths.add(modulePath(r));
    }
    // Objects carrying the marker of a changed address (found by marker when the state lacks them).
    for (const o of kept.objects.values()) {
      if (o.marker?.stack === desired.stack && changed.has(o.marker.address)) add(o.kind, o.id);
    }
    return { ids, paths };
  }
}

/** The desired-state settings whose change makes a kept read unusable. */
function settingsOf(desired: DesiredState): string {
  return JSON.stringify([desired.stack, desired.ownership, desired.moved ?? []]);
}

/** What decides each resource's plan besides live state (same text, same resource), by address. */
const signatures = new WeakMap<DesiredState, Map<string, string>>();
function signaturesOf(desired: DesiredState): Map<string, string> {
  let found = signatures.get(desired);
  if (!found) {
    found = new Map(desired.resources.map((r) => [r.address, signature(r)]));
    signatures.set(desired, found);
  }
  return found;
}

function signature(r: DesiredResource): string {
  return JSON.stringify([r.kind, r.fields, r.options, r.pathParams ?? null, r.dependsOn]);
}

/** A copy the planner may keep (its maps are new; objects are shared and never changed). */
function copy(live: LiveState): LiveState {
  return {
    objects: new Map(live.objects),
    listedKinds: new Set(live.listedKinds),
    readIds: new Set(live.readIds),
    modules: new Map(live.modules),
    readModules: new Set(live.readModules),
    missingParents: new Set(live.missingParents),
  };
}

/** Puts what a refresh of `scope` read into `live` (modules it read replace the kept ones). */
function merge(live: LiveState, read: LiveState, scope: RefreshScope): void {
  for (const [id, o] of read.objects) live.objects.set(id, o);
  for (const k of read.listedKinds) live.listedKinds.add(k);
  for (const id of read.readIds) live.readIds.add(id);
  for (const { path } of scope.modules) {
    const o = read.modules.get(path);
    if (o) live.modules.set(path, o);
    else live.modules.delete(path);
    live.readModules.add(path);
  }
  for (const p of read.missingParents) live.missingParents.add(p);
}
