/**
 * The server's storage of objects, token hashes, account settings and event deliveries, over the
 * SQLite database of ./database.ts. Knows nothing of HTTP or of kinds' rules: callers check first,
 * then write. All methods are synchronous (better-sqlite3).
 */
import type Database from "better-sqlite3";
import { nowTimestamp } from "../ids.js";
import { openDatabase } from "./database.js";

/** A stored object of any kind. `body` is plain JSON data. */
export interface StoredObject {
  /** Insertion order, only ever growing: newest first is `seq` descending. */
  seq: number;
  kind: string;
  id: string;
  /** The object it hangs off (a route's edge, a module's edge or route), or null. */
  parentId: string | null;
  /** RFC 3339. */
  createdAt: string;
  updatedAt: string;
  body: Record<string, unknown>;
}

/** One recorded delivery of an event to a destination. */
export interface EventDelivery {
  seq: number;
  event_id: string;
  event_type: string;
  subscription_id: string;
  destination_id: string;
  delivered_at: string;
  payload: Record<string, unknown>;
}

interface Row {
  seq: number;
  kind: string;
  id: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
  body: string;
}

const toObject = (row: Row): StoredObject => ({
  seq: row.seq,
  kind: row.kind,
  id: row.id,
  parentId: row.parent_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  body: JSON.parse(row.body) as Record<string, unknown>,
});

/** Storage of the reference server. One per server; `close()` in the app's onClose hook. */
export class ResourceStore {
  readonly #db: Database.Database;
  readonly #stmt;

  /** @param path SQLite file, or undefined for memory (see ./database.ts). */
  constructor(path?: string) {
    this.#db = openDatabase(path);
    const db = this.#db;
    this.#stmt = {
      get: db.prepare<[string], Row>("SELECT * FROM resources WHERE id = ?"),
      insert: db.prepare<[string, string, string | null, string, string, string], Row>(
        "INSERT INTO resources (kind, id, parent_id, created_at, updated_at, body) VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
      ),
      update: db.prepare<[string, string, string], Row>(
        "UPDATE resources SET body = ?, updated_at = ? WHERE id = ? RETURNING *",
      ),
      remove: db.prepare<[string], Row>("DELETE FROM resources WHERE id = ? RETURNING *"),
      tombstone: db.prepare<[string, string, string | null, number]>(
        "INSERT OR REPLACE INTO tombstones (id, kind, parent_id, seq) VALUES (?, ?, ?, ?)",
      ),
      seqOf: db.prepare<[{ id: string; kind: string; parent: string | null }], { seq: number }>(
        "SELECT seq FROM resources WHERE id = @id AND kind = @kind AND parent_id IS @parent UNION ALL SELECT seq FROM tombstones WHERE id = @id AND kind = @kind AND parent_id IS @parent",
      ),
      everSeen: db.prepare<[{ id: string }], { n: number }>(
        "SELECT (SELECT count(*) FROM resources WHERE id = @id) + (SELECT count(*) FROM tombstones WHERE id = @id) AS n",
      ),
      page: db.prepare<[string, string | null, number, number], Row>(
        "SELECT * FROM resources WHERE kind = ? AND parent_id IS ? AND seq < ? ORDER BY seq DESC LIMIT ?",
      ),
      all: db.prepare<[string], Row>("SELECT * FROM resources WHERE kind = ? ORDER BY seq DESC"),
      count: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM resources WHERE kind = ?"),
      children: db.prepare<[string], Row>("SELECT * FROM resources WHERE parent_id = ? ORDER BY seq"),
      mentioning: db.prepare<[string, string], Row>(
        "SELECT * FROM resources WHERE kind = ? AND instr(body, ?) > 0 ORDER BY seq",
      ),
      metaGet: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
      metaSet: db.prepare<[string, string]>("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
      hashPut: db.prepare<[string, Buffer]>(
        "INSERT INTO api_key_hashes (key_id, token_sha256) VALUES (?, ?)",
      ),
      hashFind: db.prepare<[Buffer], { key_id: string; token_sha256: Buffer }>(
        "SELECT key_id, token_sha256 FROM api_key_hashes WHERE token_sha256 = ?",
      ),
      hashRemove: db.prepare<[string]>("DELETE FROM api_key_hashes WHERE key_id = ?"),
      deliveryAdd: db.prepare<[string, string, string, string, string, string]>(
        "INSERT INTO event_deliveries (event_id, event_type, subscription_id, destination_id, delivered_at, payload) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      deliveries: db.prepare<[], EventDelivery & { payload: string }>(
        "SELECT * FROM event_deliveries ORDER BY seq",
      ),
    };
  }

  /** The object with this id (of any kind), or undefined. */
  get(id: string): StoredObject | undefined {
    const row = this.#stmt.get.get(id);
    return row === undefined ? undefined : toObject(row);
  }

  /**
   * Stores a new object.
   * @param createdAt RFC 3339; default now
   * @throws Error (SQLite UNIQUE constraint) if the id exists: callers make fresh ids or check first
   */
  insert(kind: string, id: string, parentId: string | null, body: object, createdAt?: string): StoredObject {
    const at = createdAt ?? nowTimestamp();
    const row = this.#stmt.insert.get(kind, id, parentId, at, at, JSON.stringify(body));
    if (row === undefined) throw new Error(`insert of ${id} returned nothing`);
    return toObject(row);
  }

  /** Replaces the body of an existing object (updated_at = now). @throws Error if it does not exist. */
  update(id: string, body: object): StoredObject {
    const row = this.#stmt.update.get(JSON.stringify(body), nowTimestamp(), id);
    if (row === undefined) throw new Error(`update of missing object ${id}`);
    return toObject(row);
  }

  /** Deletes an object (and its token hash), keeping a tombstone for pagination. Returns what was deleted. */
  remove(id: string): StoredObject | undefined {
    const row = this.#stmt.remove.get(id);
    if (row === undefined) return undefined;
    this.#stmt.tombstone.run(row.id, row.kind, row.parent_id, row.seq);
    this.#stmt.hashRemove.run(id);
    return toObject(row);
  }

  /** Position of an id in its list, also when it was deleted; undefined if never in that list. */
  seqOf(kind: string, parentId: string | null, id: string): number | undefined {
    return this.#stmt.seqOf.get({ id, kind, parent: parentId })?.seq;
  }

  /** Whether an object with this id exists or existed (fixtures are loaded once per id). */
  everSeen(id: string): boolean {
    return (this.#stmt.everSeen.get({ id })?.n ?? 0) > 0;
  }

  /**
   * One page of a list, newest first.
   * @param beforeSeq only objects inserted before this position; default: from the newest
   * @param limit at most this many objects
   */
  page(kind: string, parentId: string | null, limit: number, beforeSeq?: number): StoredObject[] {
    return this.#stmt.page.all(kind, parentId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit).map(toObject);
  }

  /** Every object of a kind (any parent), newest first. */
  all(kind: string): StoredObject[] {
    return this.#stmt.all.all(kind).map(toObject);
  }

  /** How many objects of a kind exist. */
  count(kind: string): number {
    return this.#stmt.count.get(kind)?.n ?? 0;
  }

  /** Objects whose parent is `parentId` (routes of an edge, modules of an edge or route), oldest first. */
  children(parentId: string): StoredObject[] {
    return this.#stmt.children.all(parentId).map(toObject);
  }

  /** Objects of `kind` whose JSON body contains the string `"<id>"` (a cheap prefilter for references). */
  mentioning(kind: string, id: string): StoredObject[] {
    return this.#stmt.mentioning.all(kind, JSON.stringify(id)).map(toObject);
  }

  /** Runs `fn` in one transaction: all its writes happen, or none. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** A setting of the account, or undefined. */
  getMeta(key: string): string | undefined {
    return this.#stmt.metaGet.get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.#stmt.metaSet.run(key, value);
  }

  /** Records the SHA-256 of an API key's token (the token itself is never stored). */
  putTokenHash(keyId: string, hash: Buffer): void {
    this.#stmt.hashPut.run(keyId, hash);
  }

  /** The key id and stored hash for a token hash, or undefined. The caller compares in constant time. */
  findTokenHash(hash: Buffer): { keyId: string; hash: Buffer } | undefined {
    const row = this.#stmt.hashFind.get(hash);
    return row === undefined ? undefined : { keyId: row.key_id, hash: row.token_sha256 };
  }

  /** Records one delivery of an event to a destination. */
  addDelivery(d: Omit<EventDelivery, "seq">): void {
    this.#stmt.deliveryAdd.run(
      d.event_id,
      d.event_type,
      d.subscription_id,
      d.destination_id,
      d.delivered_at,
      JSON.stringify(d.payload),
    );
  }

  /** Every recorded delivery, oldest first. */
  deliveries(): EventDelivery[] {
    return this.#stmt.deliveries.all().map((row) => ({ ...row, payload: JSON.parse(row.payload) }));
  }

  /** Closes the database (a file database is flushed). */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
