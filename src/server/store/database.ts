/**
 * Opens the reference server's SQLite database (docs/design.md section 5 > Storage): in memory by
 * default, a file with `--data PATH` that survives restarts. better-sqlite3 is synchronous, so every
 * write of one request runs without interleaving; multi-row writes use a transaction.
 *
 * Tables:
 * - `meta` (key, value): server-wide settings: `account_id`, the default account (the one of fixtures
 *   and of the bootstrap token).
 * - `account_settings` (account_id, key, value): each account's flags and admin user; an account
 *   exists when it has a `created_at` setting.
 * - `resources` (seq, account_id, kind, id, parent_id, created_at, updated_at, created_by, body): every
 *   stored object of every kind, modules included, in one account; `created_by` is the user or bot
 *   whose key created it (null for fixtures), for the role rules of docs/server.md. `seq` only grows (AUTOINCREMENT), so `ORDER BY seq DESC` is newest first.
 *   `body` is JSON: the request fields as stored plus server-side data that responses never show.
 * - `tombstones` (id, account_id, kind, parent_id, seq): deleted ids with their old `seq`, so a `before_id` that
 *   was deleted between two pages still positions the next page.
 * - `api_key_hashes` (key_id, token_sha256): SHA-256 of each API key's token; never the token.
 * - `event_deliveries`: every event delivered to a destination (docs/design.md section 5 > Events), with
 *   its account.
 *
 * Indexes of `resources`: `id` (unique), (account_id, kind, parent_id, seq) for lists, and parent_id
 * of the objects that have one, for children.
 *
 * A file written before accounts existed is migrated on open: its objects go to the default account.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS account_settings (
  account_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE TABLE IF NOT EXISTS resources (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  parent_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  body TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT '',
  created_by TEXT
);
CREATE TABLE IF NOT EXISTS tombstones (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  parent_id TEXT,
  seq INTEGER NOT NULL,
  account_id TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS api_key_hashes (
  key_id TEXT PRIMARY KEY,
  token_sha256 BLOB NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS event_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  destination_id TEXT NOT NULL,
  delivered_at TEXT NOT NULL,
  payload TEXT NOT NULL,
  account_id TEXT NOT NULL DEFAULT ''
);
`;

/** Columns added since the first format: [table, column, definition]. */
const ADDED_COLUMNS: [string, string, string][] = [
  ["resources", "account_id", "TEXT NOT NULL DEFAULT ''"],
  ["resources", "created_by", "TEXT"],
  ["tombstones", "account_id", "TEXT NOT NULL DEFAULT ''"],
  ["event_deliveries", "account_id", "TEXT NOT NULL DEFAULT ''"],
];

/** Adds the columns a file of an older format lacks, then the indexes that use them. */
function migrate(db: Database.Database): void {
  for (const [table, column, definition] of ADDED_COLUMNS) {
    const columns = db.pragma(`table_info(${table})`) as { name: string }[];
    if (!columns.some((c) => c.name === column))
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
  // Objects with a parent (routes, modules) are few: an index of those alone is not written by the
  // insert of every other object, as the index of every parent_id (NULL mostly) was.
  db.exec(`
    DROP INDEX IF EXISTS resources_by_kind;
    DROP INDEX IF EXISTS resources_by_parent;
    CREATE INDEX IF NOT EXISTS resources_by_account_kind ON resources (account_id, kind, parent_id, seq);
    CREATE INDEX IF NOT EXISTS resources_with_parent ON resources (parent_id) WHERE parent_id IS NOT NULL;
  `);
}

/**
 * Opens (creating if needed) the database.
 * @param path file path, or undefined for an in-memory database that disappears on close
 * @throws Error from SQLite when the file cannot be opened or is not a database of this server
 */
export function openDatabase(path?: string): Database.Database {
  if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path ?? ":memory:");
  if (path !== undefined) {
    db.pragma("journal_mode = WAL");
    // Said, not left to the build's default (better-sqlite3's is the same): with WAL, NORMAL syncs at
    // checkpoints, not at every commit. A killed server loses no committed write; a power loss or
    // an OS crash may lose the last ones, never the file's consistency (docs/server.md > Storage).
    db.pragma("synchronous = NORMAL");
  }
  db.pragma("foreign_keys = ON");
  db.exec(SCHEMA);
  migrate(db);
  return db;
}
