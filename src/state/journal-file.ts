/**
 * The journal of a state file (docs/state.md > The journal): `state.json.journal`, one JSON line per
 * write, holding only the records that write changed. The state is `state.json` with the journal's
 * entries applied in order. A line is
 *
 * ```json
 * {"version":4,"lineage":"…","serial":13,"stack":"shop","api":{…},"set":{"api_keys.ci":{…}},"removed":["a.b"]}
 * ```
 *
 * - `serial` is the serial of the state after the entry; entries chain: each is one more than the last.
 *   Entries at or below the file's serial were folded into it by a compaction that was interrupted
 *   before it removed the journal, and are skipped; entries of another lineage belong to a state that
 *   was replaced (a `write()` of a whole state removes the journal) and are skipped too.
 * - The records of an entry obey the state format (./format.ts: closed, digests only, no PEM key), so
 *   the journal can no more hold a secret than the state file.
 * - A last line that is not whole (a write cut short by a crash) is ignored and reported; any earlier
 *   line that cannot be read makes the state corrupt: an entry is never dropped silently.
 */
import { orderedRecord, snapshotProblems } from "./format.js";
import { STATE_FORMAT_VERSION } from "./snapshot.js";
import type { StateChanges, StateRecord, StateSnapshot } from "./store.js";

/** One line of the journal. */
interface JournalEntry {
  version: number;
  lineage: string;
  serial: number;
  stack: string;
  api?: StateSnapshot["api"];
  listing?: StateSnapshot["listing"];
  claims?: StateSnapshot["claims"];
  set: Record<string, StateRecord>;
  removed: string[];
}

/**
 * The line (ending with a newline) that records `changes` as the write giving `header` (whose serial is
 * the new one), and copies of the records it sets (sharing nothing with `changes`).
 * @throws Error (a bug of the caller) naming every problem when a record is not valid state material.
 */
export function journalLine(
  header: Omit<StateSnapshot, "resources">,
  changes: StateChanges,
): { line: string; set: Record<string, StateRecord> } {
  const set: Record<string, StateRecord> = {};
  for (const r of changes.set) set[r.address] = orderedRecord(r);
  const entry: JournalEntry = {
    version: STATE_FORMAT_VERSION,
    lineage: header.lineage,
    serial: header.serial,
    stack: header.stack,
    ...(header.api === undefined ? {} : { api: header.api }),
    ...(header.listing === undefined ? {} : { listing: header.listing }),
    ...(header.claims === undefined ? {} : { claims: header.claims }),
    set,
    removed: [...changes.removed],
  };
  const line = `${JSON.stringify(entry)}\n`;
  // The caller's records are checked: the copies would drop a field the format does not have.
  const given: Record<string, StateRecord> = {};
  for (const r of changes.set) given[r.address] = r;
  const problems = entryProblems({ ...entry, set: given }, line);
  if (problems.length > 0) throw new Error(problems.join("; "));
  return { line, set };
}

/** What replaying a journal gave. */
export interface Replayed {
  /** Entries applied. */
  applied: number;
  /** Length in bytes of the journal's whole lines (what an append may follow). */
  goodBytes: number;
  /** Why the last line was ignored (a write cut short), if it was. */
  torn?: string;
  /** Entries skipped because they belong to another lineage. */
  foreign: number;
}

/**
 * Applies the entries of `journal` (the file's bytes) to `snapshot` in place.
 * @returns what was applied, or `{problem}` when an entry that is not the last cannot be read, is not
 * state material, or does not follow the one before it.
 */
export function replayJournal(snapshot: StateSnapshot, journal: Buffer): Replayed | { problem: string } {
  const out: Replayed = { applied: 0, goodBytes: 0, foreign: 0 };
  let start = 0;
  let lineNo = 0;
  while (start < journal.length) {
    lineNo++;
    const nl = journal.indexOf(0x0a, start);
    const end = nl === -1 ? journal.length : nl + 1;
    const text = journal.toString("utf8", start, end);
    const last = end >= journal.length;
    const entry = parseEntry(text);
    if (typeof entry === "string") {
      if (last) return { ...out, torn: `line ${lineNo} (${end - start} bytes): ${entry}` };
      return { problem: `journal line ${lineNo}: ${entry}` };
    }
    if (nl === -1) return { ...out, torn: `line ${lineNo} (${end - start} bytes): no final newline` };
    start = end;
    if (entry.lineage !== snapshot.lineage) {
      out.foreign++;
      out.goodBytes = end;
      continue;
    }
    if (entry.serial > snapshot.serial + 1) {
      return {
        problem: `journal line ${lineNo} is serial ${entry.serial}, but the state is at serial ${snapshot.serial}: an entry is missing`,
      };
    }
    if (entry.serial === snapshot.serial + 1) {
      if (entry.stack !== snapshot.stack) {
        return { problem: `journal line ${lineNo}: stack is "${entry.stack}", not "${snapshot.stack}"` };
      }
      for (const address of entry.removed) delete snapshot.resources[address];
      Object.assign(snapshot.resources, entry.set);
      snapshot.serial = entry.serial;
      setHeader(snapshot, entry);
      out.applied++;
    }
    out.goodBytes = end;
  }
  return out;
}

/**
 * Sets the fields of `snapshot` that every write gives whole (the API, the listing, the claims) to
 * `header`'s.
 */
export function setHeader(snapshot: StateSnapshot, header: Omit<StateSnapshot, "resources">): void {
  if (header.api === undefined) delete snapshot.api;
  else snapshot.api = header.api;
  if (header.listing === undefined) delete snapshot.listing;
  else snapshot.listing = header.listing;
  if (header.claims === undefined) delete snapshot.claims;
  else snapshot.claims = header.claims;
}

/** The entry of one line, or why it is not one. */
function parseEntry(line: string): JournalEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
  if (typeof value !== "object" || value === null) return "not a journal entry";
  const e = value as Partial<JournalEntry>;
  if (typeof e.version === "number" && e.version > STATE_FORMAT_VERSION) {
    return `written by a newer tgw (state format version ${e.version}): upgrade tgw`;
  }
  if (
    typeof e.lineage !== "string" ||
    typeof e.stack !== "string" ||
    !Number.isSafeInteger(e.serial) ||
    typeof e.set !== "object" ||
    e.set === null ||
    !Array.isArray(e.removed) ||
    !e.removed.every((a) => typeof a === "string")
  ) {
    return "not a journal entry (lineage, serial, stack, set and removed are required)";
  }
  const problems = entryProblems(e as JournalEntry, line);
  return problems.length > 0 ? problems.slice(0, 5).join("; ") : (e as JournalEntry);
}

/** The state format's rules applied to the records of an entry (./format.ts). */
function entryProblems(e: JournalEntry, line: string): string[] {
  return snapshotProblems(
    {
      version: e.version,
      lineage: e.lineage,
      serial: e.serial,
      stack: e.stack,
      ...(e.api === undefined ? {} : { api: e.api }),
      ...(e.listing === undefined ? {} : { listing: e.listing }),
      ...(e.claims === undefined ? {} : { claims: e.claims }),
      resources: e.set,
    },
    line,
  );
}
