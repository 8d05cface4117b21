/**
 * What the status page of `tgw watch` shows (docs/watch.md > Status page): each managed resource with
 * its id and sync state, and the last reconciles with their results, durations and revisions. Folded
 * from the watch events (src/watch/events.ts), from each plan's changes and from the state each
 * successful reconcile leaves (both told by the engine dependencies, ./engine-deps.ts). It holds
 * addresses, ids, actions, counts, durations and the one-line messages the log prints: never a field
 * value, hence never a secret.
 *
 * Sync states:
 * - `in_sync`: live matches the configuration;
 * - `healed`: in sync, and the last change applied to it corrected drift (live had changed behind
 *   tgw's back); kept until another change is applied to it;
 * - `drifted`: drift found and left alone (`--no-self-heal`);
 * - `pending`: a change is planned and not applied yet (a reconcile is applying it, was interrupted,
 *   or a `--no-self-heal` drift check found a change of the configuration not applied yet);
 * - `failing`: its change was planned by a reconcile that failed (`error` says why); retried.
 * A reconcile that fails before planning (API unreachable...) changes no row: the health shows it.
 */
import { relative } from "node:path";
import { formatProblem } from "../config/index.js";
import type { StateSnapshot } from "../state/index.js";
import { type ChangeAction, type ChangeSummary, countChanges, type WatchEvent } from "./events.js";
import { describeTrigger } from "./trigger.js";

/** How many reconciles the page keeps (newest first). */
export const RECENT_RECONCILES = 20;

/** Sync state of one resource (see the module doc). */
export type SyncState = "in_sync" | "healed" | "drifted" | "pending" | "failing";

/** One managed resource, as `/status.json` lists it. */
export interface ResourceRow {
  address: string;
  /** Server id (a module's API path); null until it is created. */
  id: string | null;
  sync: SyncState;
  /** The change planned and not applied (`pending`, `drifted`, `failing`); else null. */
  planned: { action: ChangeAction; drift: boolean } | null;
  /** The last change this watcher applied to it; null if none since it started. */
  lastChange: { run: number; at: string; action: ChangeAction; drift: boolean } | null;
  /** `failing`: the failed reconcile's message (as the log prints it); else null. */
  error: string | null;
}

/** How a reconcile ended (`running` while it runs). */
export type ReconcileResultKind = "running" | "succeeded" | "failed" | "invalid_config" | "interrupted";

/** One reconcile, as `/status.json` lists it. Times are RFC 3339. */
export interface ReconcileRow {
  run: number;
  /** `startup`, `interval`, `file change: config/main.yaml`, `..., retry 2`. */
  trigger: string;
  mode: "apply" | "plan";
  startedAt: string;
  /** Null while running. */
  durationMs: number | null;
  result: ReconcileResultKind;
  /** Changes applied (apply) or found (plan), by action. */
  changes: Partial<Record<ChangeAction, number>>;
  /** How many of those corrected (or, in plan mode, found) drift. */
  drift: number;
  /** The Git commit reconciled (`--git`); null otherwise. */
  revision: string | null;
  /** The failure or first configuration problem, as the log prints it; else null. */
  message: string | null;
}

/** The page's data (`GET /status.json`), without the health part the server adds. */
export interface BoardView {
  /** The stack of the last successful reconcile; null before one. */
  stack: string | null;
  /** The state's version after the last successful reconcile; null before one. */
  state: { serial: number; lineage: string } | null;
  /** Sorted by address. */
  resources: ResourceRow[];
  /** Newest first, at most RECENT_RECONCILES. */
  reconciles: ReconcileRow[];
}

/** Options of a `StatusBoard`. */
export interface StatusBoardOptions {
  /** The Git commit of the configuration last loaded, valid or not (`GitFollower.loading`). */
  revision?: () => string | undefined;
  /** How trigger files are shown (default: relative to the working directory). */
  display?: (file: string) => string;
  /** The clock (tests). */
  now?: () => Date;
}

/** The status page's model: fed events, plans and states; read with `view()`. */
export class StatusBoard {
  readonly #opts: StatusBoardOptions;
  readonly #rows = new Map<string, ResourceRow>();
  #reconciles: ReconcileRow[] = [];
  #stack: string | null = null;
  #state: BoardView["state"] = null;

  constructor(opts: StatusBoardOptions = {}) {
    this.#opts = opts;
  }

  /** The data of `/status.json` (copies: later events do not change it). */
  view(): BoardView {
    const resources = [...this.#rows.values()]
      .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
      .map((r) => ({ ...r }));
    return {
      stack: this.#stack,
      state: this.#state,
      resources,
      reconciles: this.#reconciles.map((r) => ({ ...r })),
    };
  }

  /** Folds one watch event: the reconcile list, applied changes and how reconciles ended. */
  observe(event: WatchEvent): void {
    const display = this.#opts.display ?? showFile;
    switch (event.type) {
      case "reconcile_started":
        this.#begin(event.run, describeTrigger(event.trigger, display), event.mode);
        break;
      case "config_invalid": {
        if (event.run === undefined) break;
        const p = event.problems[0];
        const message = p ? `invalid configuration: ${formatProblem({ ...p, file: display(p.file) })}` : null;
        this.#begin(event.run, describeTrigger(event.trigger, display), "apply");
        this.#end(event.run, "invalid_config", event.durationMs, [], message);
        break;
      }
      case "change_applied":
        this.#applied(event.run, event.change);
        break;
      case "reconcile_succeeded":
        if (event.mode === "plan") this.#leftAlone(event.changes);
        this.#end(event.run, "succeeded", event.durationMs, event.changes, null);
        break;
      case "reconcile_failed":
        this.#settle("pending", (row) => ({ ...row, sync: "failing", error: event.message }));
        this.#end(event.run, "failed", event.durationMs, event.applied, event.message);
        break;
      case "reconcile_interrupted":
        this.#end(event.run, "interrupted", event.durationMs, event.applied, null);
        break;
      default:
        break;
    }
  }

  /**
   * A plan's changes (no-ops left out), for the whole stack: each address planned is `pending`; every
   * other row that was waiting for a change (pending, drifted, failing) is in sync again.
   */
  planned(changes: ChangeSummary[]): void {
    const byAddress = new Map(changes.map((c) => [c.address, c]));
    for (const row of this.#rows.values()) {
      if (!byAddress.has(row.address) && row.planned !== null) this.#rows.set(row.address, settled(row));
    }
    for (const c of changes) {
      const row = this.#rows.get(c.address) ?? newRow(c.address, null);
      const planned = { action: c.action, drift: c.drift === true };
      this.#rows.set(c.address, { ...row, sync: "pending", planned, error: null });
    }
  }

  /**
   * The state after a successful reconcile: its stack, version and each record's id. Rows it no longer
   * holds are dropped unless a change is still planned for them (a drifted delete, a pending create).
   */
  state(snapshot: StateSnapshot): void {
    if (this.#stack !== null && this.#stack !== snapshot.stack) this.#rows.clear();
    this.#stack = snapshot.stack;
    this.#state = { serial: snapshot.serial, lineage: snapshot.lineage };
    for (const row of [...this.#rows.values()]) {
      if (!(row.address in snapshot.resources) && row.planned === null) this.#rows.delete(row.address);
    }
    for (const record of Object.values(snapshot.resources)) {
      const row = this.#rows.get(record.address) ?? newRow(record.address, record.id);
      this.#rows.set(record.address, { ...row, id: record.id });
    }
  }

  #now(): string {
    return (this.#opts.now?.() ?? new Date()).toISOString();
  }

  /** Adds a running reconcile at the head of the list (one row per run number). */
  #begin(run: number, trigger: string, mode: ReconcileRow["mode"]): void {
    if (this.#reconciles.some((r) => r.run === run)) return;
    const row: ReconcileRow = {
      run,
      trigger,
      mode,
      startedAt: this.#now(),
      durationMs: null,
      result: "running",
      changes: {},
      drift: 0,
      revision: this.#opts.revision?.() ?? null,
      message: null,
    };
    this.#reconciles = [row, ...this.#reconciles].slice(0, RECENT_RECONCILES);
  }

  /** Records how reconcile `run` ended. */
  #end(
    run: number,
    result: ReconcileResultKind,
    durationMs: number,
    changes: ChangeSummary[],
    message: string | null,
  ): void {
    this.#reconciles = this.#reconciles.map((r) =>
      r.run !== run
        ? r
        : {
            ...r,
            result,
            durationMs,
            changes: countChanges(changes),
            drift: changes.filter((c) => c.drift).length,
            message,
          },
    );
  }

  /** One change applied: the row is in sync (healed, when it corrected drift), or gone (deleted). */
  #applied(run: number, change: ChangeSummary): void {
    if (change.action === "delete" || change.action === "forget") {
      this.#rows.delete(change.address);
      return;
    }
    const row = this.#rows.get(change.address) ?? newRow(change.address, null);
    const drift = change.drift === true;
    this.#rows.set(change.address, {
      ...row,
      sync: drift ? "healed" : "in_sync",
      planned: null,
      error: null,
      lastChange: { run, at: this.#now(), action: change.action, drift },
    });
  }

  /** A plan-only reconcile (`--no-self-heal`): its drift is `drifted`, other changes stay `pending`. */
  #leftAlone(changes: ChangeSummary[]): void {
    for (const c of changes) {
      const row = this.#rows.get(c.address);
      if (row && c.drift) this.#rows.set(c.address, { ...row, sync: "drifted" });
    }
  }

  /** Replaces every row in sync state `sync` with `update(row)`. */
  #settle(sync: SyncState, update: (row: ResourceRow) => ResourceRow): void {
    for (const row of [...this.#rows.values()]) {
      if (row.sync === sync) this.#rows.set(row.address, update(row));
    }
  }
}

/** A trigger's file relative to the working directory, as the log shows it. */
function showFile(file: string): string {
  return file.startsWith("/") ? relative(process.cwd(), file) || "." : file;
}

/** A row first seen now: in sync, nothing planned. */
function newRow(address: string, id: string | null): ResourceRow {
  return { address, id, sync: "in_sync", planned: null, lastChange: null, error: null };
}

/** A row with nothing planned any more: in sync (`healed` if its last change corrected drift). */
function settled(row: ResourceRow): ResourceRow {
  return { ...row, sync: row.lastChange?.drift ? "healed" : "in_sync", planned: null, error: null };
}
