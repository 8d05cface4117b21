/**
 * Opens the reference server's SQLite database (DECISIONS.md section 5 > Storage): in memory by
 * default, a file with `--data PATH` that survives restarts. better-sqlite3 is synchronous, so every
 * write of one request runs without interleaving; multi-row writes use a transaction.
 *
 * Tables:
 * - `meta` (key, value): account id and account flags.
 * - `resources` (seq, kind, id, parent_id, created_at, updated_at, body): every stored object of every
 *   kind, modules included. `seq` only grows (AUTOINCREMENT), so `ORDER BY seq DESC` is newest first.
 *   `body` is JSON: the request fields as stored plus server-side data that responses never show.
 * - `tombstones` (id, kind, parent_id, seq): deleted ids with their old `seq`, so a `before_id` that
 *   was deleted between two pages still positions the next page.
 * - `api_key_hashes` (key_id, token_sha256): SHA-256 of each API key's token; never the token.
 * - `event_deliveries`: every event delivered to a destination (DECISIONS.md section 5 > Events).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS resources (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  parent_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS resources_by_kind ON resources (kind, parent_id, seq);
CREATE INDEX IF NOT EXISTS resources_by_parent ON resources (parent_id);
CREATE TABLE IF NOT EXISTS tombstones (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  parent_id TEXT,
  seq INTEGER NOT NULL
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
  payload TEXT NOT NULL
);
`;

/**
 * Opens (creating if needed) the database.
 * @param path file path, or undefined for an in-memory database that disappears on close
 * @throws Error from SQLite when the file cannot be opened or is not a database of this server
 */
export function openDatabase(path?: string): Database.Database {
  if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path ?? ":memory:");
  if (path !== undefined) db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(SCHEMA);
  return db;
}
