/**
 * `tgw state history | restore SERIAL | migrate --to LOCATION` (docs/state.md):
 * - `history` lists the states a PostgreSQL store keeps (the last N, with the plan of each);
 * - `restore SERIAL` writes the records of a kept state as a new state (serial + 1), under the lock;
 *   nothing live is changed, the next plan compares them with live state;
 * - `migrate --to` copies the whole state (lineage, serial, records) into an empty store: a file
 *   into PostgreSQL and back. The source is left as it was.
 *
 * Subcommands of `tgw state` (src/cli/commands/state.ts registers them); imports no command.
 */
import type { Command } from "commander";
import { parseDuration } from "../duration.js";
import { UsageError } from "../errors.js";
import { EVERY_KIND, markUnrecorded } from "../state/index.js";
import { locateState, openStateStore } from "../state/open.js";
import type {
  HistoryEntry,
  PlannedChange,
  StateHistory,
  StateImport,
  StateSnapshot,
  StateStore,
} from "../state/store.js";
import { withLocation } from "./options.js";
import { color, colorErr, helpExamples } from "./output.js";
import { table } from "./render/table.js";
import { openCommandState, type StateLocateOptions } from "./state-location.js";

function hasHistory(store: StateStore): store is StateStore & StateHistory {
  return typeof (store as Partial<StateHistory>).history === "function";
}

function canImport(store: StateStore): store is StateStore & StateImport {
  return typeof (store as Partial<StateImport>).importSnapshot === "function";
}

function noHistory(location: string): UsageError {
  return new UsageError(
    `state ${location} keeps no history: a state file keeps only the version before the last write (<file>.backup); a PostgreSQL state keeps the last states (docs/state.md)`,
  );
}

/** `+2 ~1 -1` for the changes of a plan. */
function changeSummary(plan: PlannedChange[] | undefined): string {
  if (plan === undefined) return "";
  const count = (actions: string[]) => plan.filter((c) => actions.includes(c.action)).length;
  const parts = [
    ["+", count(["create"])],
    ["~", count(["update", "put"])],
    ["-/+", count(["replace"])],
    ["-", count(["delete"])],
  ].filter(([, n]) => (n as number) > 0);
  return parts.length === 0 ? "no changes" : parts.map(([s, n]) => `${s}${n}`).join(" ");
}

/** Registers the history, restore and migrate subcommands under `tgw state`. */
export function registerStateHistory(state: Command): void {
  withLocation(
    state
      .command("history")
      .description("list the past states a PostgreSQL state keeps, newest first, with what produced each")
      .addHelpText("after", helpExamples("tgw state history -f infra/", "tgw state history --json"))
      .option("--limit <n>", "show at most this many", (v) => Number.parseInt(v, 10))
      .option("--json", "print JSON"),
  ).action(showHistory);

  withLocation(
    state
      .command("restore")
      .description(
        "make a kept past state the current one again (written as a new serial; nothing live changes)",
      )
      .addHelpText("after", helpExamples("tgw state restore 12 -f infra/"))
      .argument("<serial>", "the serial to restore (see tgw state history)")
      .option("--lock-timeout <duration>", "how long to wait for the state lock", "0s"),
  ).action(restoreState);

  withLocation(
    state
      .command("migrate")
      .description("copy the whole state (lineage, serial, records) into another, empty store")
      .addHelpText(
        "after",
        helpExamples(
          "tgw state migrate -f infra/ --to postgres://tgw@db.example.com/tgw",
          "tgw state migrate -f infra/ --state postgres://tgw@db/tgw --to infra/.tgw/state.json",
        ),
      )
      .requiredOption("--to <path|url>", "where to: a state file path or a postgres:// URL")
      .option("--lock-timeout <duration>", "how long to wait for each state lock", "0s"),
  ).action(migrateState);
}

/**
 * `tgw state history`: the kept states, newest first, as a table or JSON.
 * @throws UsageError when the store keeps no history.
 */
async function showHistory(opts: StateLocateOptions & { json?: boolean; limit?: number }): Promise<void> {
  const { store } = await openCommandState(opts, "tgw state history");
  if (!hasHistory(store)) throw noHistory(store.location);
  const entries = await store.history(opts.limit);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ state: store.location, history: entries }, null, 2)}\n`);
    return;
  }
  if (entries.length === 0) {
    process.stdout.write(`No history in state ${store.location}: nothing has been written yet.\n`);
    return;
  }
  process.stdout.write(
    table(["SERIAL", "WRITTEN AT", "BY", "REVISION", "RESOURCES", "PLAN"], entries.map(row)),
  );
}

/**
 * `tgw state restore SERIAL`: writes the records of a kept state as a new serial, under the lock.
 * @throws UsageError for a bad serial, one not kept, or a store without history; the lock's errors.
 */
async function restoreState(
  serialText: string,
  opts: StateLocateOptions & { lockTimeout: string },
): Promise<void> {
  const serial = Number(serialText);
  if (!Number.isInteger(serial) || serial < 1) {
    throw new UsageError(`SERIAL must be a whole number from 1, got "${serialText}"`);
  }
  const timeoutMs = parseDuration(opts.lockTimeout, "--lock-timeout");
  const command = `tgw state restore ${serial}`;
  const { store } = await openCommandState(opts, command);
  if (!hasHistory(store)) throw noHistory(store.location);
  const unlock = await store.lock({ timeoutMs, holder: command });
  try {
    const past = await store.snapshotAt(serial);
    if (past === undefined) {
      const kept = (await store.history()).map((e) => e.serial);
      throw new UsageError(
        `serial ${serial} is not kept in state ${store.location} (kept: ${kept.join(", ") || "none"})`,
      );
    }
    const current = await store.read();
    const restored = { ...current, resources: past.resources };
    // Objects created after serial N carry this stack's marker and no record: every kind is listed.
    markUnrecorded(restored, [EVERY_KIND]);
    const written = await store.write(restored, { command });
    process.stdout.write(
      `Restored the records of serial ${serial} as serial ${written.serial} of state ${store.location}.\n` +
        "Nothing live was changed: the next plan compares these records with the live resources.\n",
    );
  } finally {
    await unlock();
  }
}

/**
 * `tgw state migrate --to`: copies the whole state, under the source's lock, into the store at `--to`.
 * @throws UsageError when there is no state, `--to` is the source or cannot import; the stores' errors.
 */
async function migrateState(opts: StateLocateOptions & { to: string; lockTimeout: string }): Promise<void> {
  const timeoutMs = parseDuration(opts.lockTimeout, "--lock-timeout");
  const holder = "tgw state migrate";
  const from = await openCommandState(opts, holder);
  const unlockFrom = await from.store.lock({ timeoutMs, holder });
  try {
    const snapshot = await from.store.read();
    if (snapshot.serial === 0) {
      throw new UsageError(`no state at ${from.store.location}: nothing to migrate (use --state or -f?)`);
    }
    const to = await openStateStore(locateState({ state: opts.to, env: {} }), {
      stack: snapshot.stack,
      command: holder,
      warn: (m) => process.stderr.write(`${colorErr.yellow("Warning:")} ${m}\n`),
    });
    try {
      if (to.store.location === from.store.location) {
        throw new UsageError(`--to names the state being migrated (${to.store.location})`);
      }
      await importInto(to.store, snapshot, { timeoutMs, holder });
      const n = Object.keys(snapshot.resources).length;
      process.stdout.write(
        `Migrated stack ${color.bold(snapshot.stack)} (serial ${snapshot.serial}, lineage ${snapshot.lineage}, ` +
          `${n} resource${n === 1 ? "" : "s"}) from ${from.store.location} to ${to.store.location}.\n` +
          `The source was left as it was. Use the new state from now on: --state, TGW_STATE_URL or the state: block.\n`,
      );
    } finally {
      await to.close();
    }
  } finally {
    await unlockFrom();
    await from.close();
  }
}

/**
 * Imports `snapshot` into `store` under its lock and reads it back.
 * @throws UsageError when the store cannot import; Error when what is read back differs.
 */
async function importInto(
  store: StateStore,
  snapshot: StateSnapshot,
  lock: { timeoutMs: number; holder: string },
): Promise<void> {
  if (!canImport(store)) throw new UsageError(`state ${store.location} cannot take a migrated state`);
  const unlock = await store.lock(lock);
  try {
    await store.importSnapshot(snapshot);
    const check = await store.read();
    if (JSON.stringify(check) !== JSON.stringify(snapshot)) {
      throw new Error(`the state read back from ${store.location} differs from the one migrated`);
    }
  } finally {
    await unlock();
  }
}

function row(e: HistoryEntry): string[] {
  return [
    String(e.serial),
    e.writtenAt,
    e.writtenBy,
    e.revision === undefined ? "" : e.revision.slice(0, 12),
    String(e.resources),
    changeSummary(e.plan),
  ];
}
