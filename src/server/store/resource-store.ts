/**
 * The server's storage of objects, token hashes, account settings and event deliveries, over the
 * SQLite database of ./database.ts. Knows nothing of HTTP or of kinds' rules: callers check first,
 * then write. All methods are synchronous (better-sqlite3).
 *
 * A store is a view of ONE account: every read and write of objects, settings and deliveries is
 * confined to it, so nothing a request does can reach another account's data (docs/server.md >
 * Accounts and roles). The store a server opens is the default account's; `forAccount` gives the
 * view of another one (and records who creates objects through it). Ids stay unique across accounts.
 * With a data key, secret values are encrypted in the file (./secrets.ts). Objects, list positions
 * and settings once read are served from memory (./object-cache.ts, whose rules the writes here keep).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { nowTimestamp, randomAlphanumeric } from "../ids.js";
import { openDatabase } from "./database.js";
import { ObjectCache } from "./object-cache.js";
import type { StoredObject } from "./stored-object.js";

export type { StoredObject } from "./stored-object.js";

import { DataKeyError, SecretBox } from "./secrets.js";

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

/** Options of a store. */
export interface StoreOptions {
  /** Key that encrypts the secrets of a file store (required with a path; ignored in memory). */
  dataKey?: string | undefined;
}

interface Row {
  seq: number;
  kind: string;
  id: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  account_id: string;
  body: string;
}

/** Shared by every account view of one database. */
interface Database_ {
  db: Database.Database;
  stmt: ReturnType<typeof prepare>;
  box: SecretBox | undefined;
  cache: ObjectCache;
  /** Runs a function in a transaction (a savepoint when nested); made once, not per call. */
  inTransaction: (fn: () => unknown) => unknown;
}

/** A new account id (`acct_` + 27 alphanumerics). */
export function newAccountId(): string {
  return `acct_${randomAlphanumeric(27)}`;
}

function prepare(db: Database.Database) {
  type A = { account: string };
  return {
    getAny: db.prepare<[string], Row>("SELECT * FROM resources WHERE id = ?"),
    // Positional: binding named parameters looks each one up on an object, on every create.
    insert: db.prepare<
      [
        account: string,
        kind: string,
        id: string,
        parent: string | null,
        createdAt: string,
        updatedAt: string,
        createdBy: string | null,
        body: string,
      ]
    >(
      "INSERT INTO resources (account_id, kind, id, parent_id, created_at, updated_at, created_by, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    update: db.prepare<[A & { id: string; body: string; at: string }], Row>(
      "UPDATE resources SET body = @body, updated_at = @at WHERE id = @id AND account_id = @account RETURNING *",
    ),
    remove: db.prepare<[A & { id: string }], Row>(
      "DELETE FROM resources WHERE id = @id AND account_id = @account RETURNING *",
    ),
    tombstone: db.prepare<[A & { id: string; kind: string; parent: string | null; seq: number }]>(
      "INSERT OR REPLACE INTO tombstones (id, account_id, kind, parent_id, seq) VALUES (@id, @account, @kind, @parent, @seq)",
    ),
    seqOf: db.prepare<[A & { id: string; kind: string; parent: string | null }], { seq: number }>(
      "SELECT seq FROM resources WHERE id = @id AND kind = @kind AND parent_id IS @parent AND account_id = @account UNION ALL SELECT seq FROM tombstones WHERE id = @id AND kind = @kind AND parent_id IS @parent AND account_id = @account",
    ),
    everSeen: db.prepare<[{ id: string }], { n: number }>(
      "SELECT (SELECT count(*) FROM resources WHERE id = @id) + (SELECT count(*) FROM tombstones WHERE id = @id) AS n",
    ),
    page: db.prepare<[A & { kind: string; parent: string | null; before: number; limit: number }], Row>(
      "SELECT * FROM resources WHERE account_id = @account AND kind = @kind AND parent_id IS @parent AND seq < @before ORDER BY seq DESC LIMIT @limit",
    ),
    // The positions of a whole list, ascending, read from the index alone (kept by the cache).
    listSeqs: db
      .prepare<[A & { kind: string; parent: string | null }], number>(
        "SELECT seq FROM resources WHERE account_id = @account AND kind = @kind AND parent_id IS @parent ORDER BY seq",
      )
      .pluck(true),
    all: db.prepare<[A & { kind: string }], Row>(
      "SELECT * FROM resources WHERE account_id = @account AND kind = @kind ORDER BY seq DESC",
    ),
    everything: db.prepare<[], Row>("SELECT * FROM resources"),
    count: db.prepare<[A & { kind: string }], { n: number }>(
      "SELECT count(*) AS n FROM resources WHERE account_id = @account AND kind = @kind",
    ),
    children: db.prepare<[A & { parent: string }], Row>(
      "SELECT * FROM resources WHERE parent_id = @parent AND account_id = @account ORDER BY seq",
    ),
    mentioning: db.prepare<[A & { kind: string; text: string }], Row>(
      "SELECT * FROM resources WHERE account_id = @account AND kind = @kind AND instr(body, @text) > 0 ORDER BY seq",
    ),
    rawBody: db.prepare<[{ id: string; body: string }]>("UPDATE resources SET body = @body WHERE id = @id"),
    metaGet: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
    metaSet: db.prepare<[string, string]>("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
    settingGet: db.prepare<[A & { key: string }], { value: string }>(
      "SELECT value FROM account_settings WHERE account_id = @account AND key = @key",
    ),
    settingSet: db.prepare<[A & { key: string; value: string }]>(
      "INSERT OR REPLACE INTO account_settings (account_id, key, value) VALUES (@account, @key, @value)",
    ),
    hashPut: db.prepare<[string, Buffer]>("INSERT INTO api_key_hashes (key_id, token_sha256) VALUES (?, ?)"),
    hashFind: db.prepare<[Buffer], { key_id: string; token_sha256: Buffer }>(
      "SELECT key_id, token_sha256 FROM api_key_hashes WHERE token_sha256 = ?",
    ),
    hashRemove: db.prepare<[string]>("DELETE FROM api_key_hashes WHERE key_id = ?"),
    deliveryAdd: db.prepare<[A & Omit<EventDelivery, "seq">]>(
      "INSERT INTO event_deliveries (account_id, event_id, event_type, subscription_id, destination_id, delivered_at, payload) VALUES (@account, @event_id, @event_type, @subscription_id, @destination_id, @delivered_at, @payload)",
    ),
    deliveries: db.prepare<[A], EventDelivery & { payload: string; account_id: string }>(
      "SELECT * FROM event_deliveries WHERE account_id = @account ORDER BY seq",
    ),
  };
}

/** Creates a data file readable by its owner only (and makes an existing one so). */
function privateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const f of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/**
 * Sets up encryption of a file store: a salt and a check value on first use, a clear error for a
 * missing or wrong key. Secrets already stored in clear (files older than encryption) are sealed.
 */
function openBox(db: Database.Database, stmt: Database_["stmt"], path: string, dataKey: string | undefined) {
  const check = stmt.metaGet.get("data_key_check")?.value;
  if (dataKey === undefined || dataKey === "") {
    throw new DataKeyError(
      check === undefined
        ? `the data file ${path} needs a key to encrypt the secrets it keeps (SSH CA and SAML keys, OIDC and event destination secrets): set TGW_DATA_KEY, e.g. to the output of \`openssl rand -base64 32\`, and keep it`
        : `the data file ${path} keeps its secrets encrypted: set TGW_DATA_KEY to the key it was created with`,
    );
  }
  if (dataKey.length < 16) throw new DataKeyError("TGW_DATA_KEY is too short: give at least 16 characters");
  let salt = stmt.metaGet.get("data_key_salt")?.value;
  if (salt === undefined) {
    salt = randomAlphanumeric(32);
    stmt.metaSet.run("data_key_salt", salt);
  }
  const box = new SecretBox(dataKey, Buffer.from(salt, "utf8"));
  if (check !== undefined && !box.matches(check)) {
    throw new DataKeyError(
      `TGW_DATA_KEY does not open the data file ${path}: it is not the key the file was created with`,
    );
  }
  if (check === undefined) {
    db.transaction(() => {
      stmt.metaSet.run("data_key_check", box.checkValue());
      for (const row of stmt.everything.all()) {
        const sealed = JSON.stringify(box.seal(JSON.parse(row.body)));
        if (sealed !== row.body) stmt.rawBody.run({ id: row.id, body: sealed });
      }
    })();
  }
  return box;
}

/** The default account: the `account_id` of `meta`; objects of files older than accounts join it. */
function defaultAccount(db: Database.Database, stmt: Database_["stmt"]): string {
  let id = stmt.metaGet.get("account_id")?.value;
  db.transaction(() => {
    if (id === undefined) {
      id = newAccountId();
      stmt.metaSet.run("account_id", id);
    }
    const account = id;
    if (stmt.settingGet.get({ account, key: "created_at" }) === undefined) {
      stmt.settingSet.run({ account, key: "created_at", value: nowTimestamp() });
      // Settings kept in `meta` before accounts existed.
      for (const key of ["abuse_reports", "admin_user_id"]) {
        const value = stmt.metaGet.get(key)?.value;
        if (value !== undefined) stmt.settingSet.run({ account, key, value });
      }
    }
    for (const table of ["resources", "tombstones", "event_deliveries"]) {
      db.prepare(`UPDATE ${table} SET account_id = ? WHERE account_id = ''`).run(account);
    }
  })();
  return id as string;
}

/** Storage of the reference server, seen from one account. `close()` in the app's onClose hook. */
export class ResourceStore {
  readonly #d: Database_;
  #account: string;
  readonly #actor: string | null;

  /**
   * Opens the database (see ./database.ts) as the default account's store.
   * @param path SQLite file (created 0600, with its -wal and -shm), or undefined for memory
   * @throws DataKeyError for a file without `dataKey`, or with another key than the file's
   */
  constructor(
    path?: string,
    options: StoreOptions = {},
    // `d` is a Database_: typed `object` so the emitted declarations need not name SQLite's types.
    view?: { d: object; account: string; actor: string | null },
  ) {
    if (view !== undefined) {
      this.#d = view.d as Database_;
      this.#account = view.account;
      this.#actor = view.actor;
      return;
    }
    if (path !== undefined && !existsSync(path) && !options.dataKey) {
      throw new DataKeyError(
        `the data file ${path} needs a key to encrypt the secrets it will keep (SSH CA and SAML keys, OIDC and event destination secrets): set TGW_DATA_KEY, e.g. to the output of \`openssl rand -base64 32\`, and keep it`,
      );
    }
    if (path !== undefined) privateFile(path);
    const db = openDatabase(path);
    try {
      if (path !== undefined) privateFile(path);
      const stmt = prepare(db);
      const box = path === undefined ? undefined : openBox(db, stmt, path, options.dataKey);
      const cache = new ObjectCache(db, path !== undefined);
      this.#d = { db, stmt, box, cache, inTransaction: db.transaction((fn: () => unknown) => fn()) };
      this.#account = defaultAccount(db, stmt);
      this.#actor = null;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** The account this store sees. */
  get accountId(): string {
    return this.#account;
  }

  /**
   * The same database seen from `accountId` (which need not exist: see `accountExists`).
   * @param actor the user or bot recorded as creator of the objects inserted through the view
   */
  forAccount(accountId: string, actor: string | null = null): ResourceStore {
    return new ResourceStore(undefined, {}, { d: this.#d, account: accountId, actor });
  }

  /** Whether an account was created (it has settings). */
  accountExists(accountId: string): boolean {
    return this.#setting(accountId, "created_at") !== undefined;
  }

  /** Creates an account (its `created_at` setting) and returns its store. */
  createAccount(accountId = newAccountId()): ResourceStore {
    this.#setSetting(accountId, "created_at", nowTimestamp());
    return this.forAccount(accountId);
  }

  /** Gives this (default) account another id: its objects, settings and deliveries move along. */
  renameAccount(newId: string): void {
    const old = this.#account;
    if (newId === old) return;
    const { db, stmt } = this.#d;
    this.#d.cache.clear();
    db.transaction(() => {
      for (const table of ["resources", "tombstones", "event_deliveries", "account_settings"]) {
        db.prepare(`UPDATE ${table} SET account_id = ? WHERE account_id = ?`).run(newId, old);
      }
      if (stmt.metaGet.get("account_id")?.value === old) stmt.metaSet.run("account_id", newId);
    })();
    this.#account = newId;
  }

  #toObject(row: Row): StoredObject {
    return {
      seq: row.seq,
      kind: row.kind,
      id: row.id,
      parentId: row.parent_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      createdBy: row.created_by,
      body: this.#bodyOf(row.body),
    };
  }

  /** A body from its stored JSON text (secrets opened). */
  #bodyOf(text: string): Record<string, unknown> {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return this.#d.box ? (this.#d.box.open(parsed) as Record<string, unknown>) : parsed;
  }

  /** A row read outside the cache, kept in it, and the object. */
  #cached(row: Row): StoredObject {
    const obj = this.#toObject(row);
    this.#d.cache.put(obj, row.account_id);
    return obj;
  }

  /** A cached object with this id, of any account (fetched and kept on a miss). */
  #byId(id: string): { obj: StoredObject; accountId: string } | undefined {
    const { cache, stmt } = this.#d;
    cache.sync();
    const hit = cache.byId(id);
    if (hit !== undefined) return hit;
    const row = stmt.getAny.get(id);
    return row === undefined ? undefined : { obj: this.#cached(row), accountId: row.account_id };
  }

  #serialize(body: object): string {
    return JSON.stringify(this.#d.box ? this.#d.box.seal(body) : body);
  }

  /** The object with this id (of any kind) in this account, or undefined. */
  get(id: string): StoredObject | undefined {
    const found = this.#byId(id);
    return found?.accountId === this.#account ? found.obj : undefined;
  }

  /** The object with this id in any account, and its account (authentication only). */
  getInAnyAccount(id: string): { obj: StoredObject; accountId: string } | undefined {
    return this.#byId(id);
  }

  /**
   * Stores a new object in this account, created by this view's actor.
   * @param createdAt RFC 3339; default now
   * @throws Error (SQLite UNIQUE constraint) if the id exists: callers make fresh ids or check first
   */
  insert(kind: string, id: string, parentId: string | null, body: object, createdAt?: string): StoredObject {
    const at = createdAt ?? nowTimestamp();
    const text = this.#serialize(body);
    const { lastInsertRowid } = this.#d.stmt.insert.run(
      this.#account,
      kind,
      id,
      parentId,
      at,
      at,
      this.#actor,
      text,
    );
    const seq = Number(lastInsertRowid);
    this.#d.cache.inserted(this.#account, kind, parentId, seq);
    // The object as a read of the row would give it (the body through its stored JSON form), kept
    // (outside a transaction): a list read next, such as the subscriptions every event looks for,
    // would otherwise fetch the whole list again for it.
    const obj: StoredObject = {
      seq,
      kind,
      id,
      parentId,
      createdAt: at,
      updatedAt: at,
      createdBy: this.#actor,
      body: this.#bodyOf(text),
    };
    this.#d.cache.put(obj, this.#account);
    return obj;
  }

  /** Replaces the body of an existing object (updated_at = now). @throws Error if it does not exist. */
  update(id: string, body: object): StoredObject {
    this.#d.cache.drop(id);
    const row = this.#d.stmt.update.get({
      id,
      body: this.#serialize(body),
      at: nowTimestamp(),
      account: this.#account,
    });
    if (row === undefined) throw new Error(`update of missing object ${id}`);
    return this.#toObject(row);
  }

  /** Deletes an object (and its token hash), keeping a tombstone for pagination. Returns what was deleted. */
  remove(id: string): StoredObject | undefined {
    this.#d.cache.drop(id);
    const row = this.#d.stmt.remove.get({ id, account: this.#account });
    if (row === undefined) return undefined;
    this.#d.cache.dropList(this.#account, row.kind, row.parent_id);
    this.#d.stmt.tombstone.run({
      id: row.id,
      account: this.#account,
      kind: row.kind,
      parent: row.parent_id,
      seq: row.seq,
    });
    this.#d.cache.dropTokenKeys();
    this.#d.stmt.hashRemove.run(id);
    return this.#toObject(row);
  }

  /** Position of an id in its list, also when it was deleted; undefined if never in that list. */
  seqOf(kind: string, parentId: string | null, id: string): number | undefined {
    return this.#d.stmt.seqOf.get({ id, kind, parent: parentId, account: this.#account })?.seq;
  }

  /** Whether an object with this id exists or existed, in any account (ids are unique across accounts). */
  everSeen(id: string): boolean {
    return (this.#d.stmt.everSeen.get({ id })?.n ?? 0) > 0;
  }

  /**
   * One page of a list, newest first.
   * @param beforeSeq only objects inserted before this position; default: from the newest
   * @param limit at most this many objects
   */
  page(kind: string, parentId: string | null, limit: number, beforeSeq?: number): StoredObject[] {
    const { cache, stmt } = this.#d;
    const query = {
      account: this.#account,
      kind,
      parent: parentId,
      before: beforeSeq ?? Number.MAX_SAFE_INTEGER,
      limit,
    };
    cache.sync();
    let seqs = cache.list(this.#account, kind, parentId);
    if (seqs === undefined) {
      const all = stmt.listSeqs.all(query);
      cache.putList(this.#account, kind, parentId, all);
      seqs = all;
    }
    // The first position at or after `before` (binary search): the page is what precedes it.
    let lo = 0;
    let hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((seqs[mid] as number) < query.before) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredObject[] = [];
    for (let i = lo - 1; i >= 0 && out.length < limit; i--) {
      const hit = cache.bySeq(seqs[i] as number);
      // An object not cached yet (or evicted): the page from the table, which fills the cache.
      if (hit === undefined) return stmt.page.all(query).map((r) => this.#cached(r));
      out.push(hit.obj);
    }
    return out;
  }

  /**
   * Every object of a list (`kind` under `parentId`), oldest first, from memory when the cache holds
   * them (see `page`).
   */
  list(kind: string, parentId: string | null = null): StoredObject[] {
    return this.page(kind, parentId, Number.MAX_SAFE_INTEGER).reverse();
  }

  /**
   * The event subscriptions with a source of event type `type`, oldest first: from memory until a
   * subscription is written (each create, update and delete asks, so a scan per call would cost the
   * number of subscriptions at every write).
   */
  subscriptionsFor(type: string): readonly StoredObject[] {
    this.#d.cache.sync();
    const byType = this.#d.cache.derived(this.#account, "event_subscription", () => {
      const map = new Map<string, StoredObject[]>();
      for (const sub of this.list("event_subscription")) {
        const types = new Set((sub.body.sources as { type: string }[] | undefined)?.map((s) => s.type));
        for (const t of types) {
          const subs = map.get(t);
          if (subs) subs.push(sub);
          else map.set(t, [sub]);
        }
      }
      return map;
    });
    return byType.get(type) ?? [];
  }

  /** Every object of a kind (any parent), newest first. */
  all(kind: string): StoredObject[] {
    return this.#d.stmt.all.all({ account: this.#account, kind }).map((r) => this.#toObject(r));
  }

  /** How many objects of a kind exist. */
  count(kind: string): number {
    return this.#d.stmt.count.get({ account: this.#account, kind })?.n ?? 0;
  }

  /** Objects whose parent is `parentId` (routes of an edge, modules of an edge or route), oldest first. */
  children(parentId: string): StoredObject[] {
    return this.#d.stmt.children
      .all({ account: this.#account, parent: parentId })
      .map((r) => this.#toObject(r));
  }

  /** Objects of `kind` whose JSON body contains the string `"<id>"` (a cheap prefilter for references). */
  mentioning(kind: string, id: string): StoredObject[] {
    return this.#d.stmt.mentioning
      .all({ account: this.#account, kind, text: JSON.stringify(id) })
      .map((r) => this.#toObject(r));
  }

  /** Runs `fn` in one transaction: all its writes happen, or none. */
  transaction<T>(fn: () => T): T {
    return this.#d.inTransaction(fn) as T;
  }

  /** A setting of this account, or undefined. */
  getMeta(key: string): string | undefined {
    return this.#setting(this.#account, key);
  }

  /** Sets a setting of this account. */
  setMeta(key: string, value: string): void {
    this.#setSetting(this.#account, key, value);
  }

  #setting(account: string, key: string): string | undefined {
    const { cache, stmt } = this.#d;
    cache.sync();
    const hit = cache.setting(account, key);
    if (hit !== undefined) return hit.value;
    const value = stmt.settingGet.get({ account, key })?.value;
    cache.putSetting(account, key, value);
    return value;
  }

  #setSetting(account: string, key: string, value: string): void {
    this.#d.cache.dropSetting(account, key);
    this.#d.stmt.settingSet.run({ account, key, value });
  }

  /** Records the SHA-256 of an API key's token (the token itself is never stored). */
  putTokenHash(keyId: string, hash: Buffer): void {
    this.#d.stmt.hashPut.run(keyId, hash);
  }

  /**
   * The key id and stored hash of a token's SHA-256 (base64, ../ids.ts > tokenDigest), or undefined.
   * The caller compares in constant time. Keys found are kept in memory (their hashes, never tokens),
   * so a request of a known key does not query the table.
   */
  findTokenHash(digest: string): { keyId: string; digest: string } | undefined {
    const { cache, stmt } = this.#d;
    cache.sync();
    const hit = cache.tokenKey(digest);
    if (hit !== undefined) return { keyId: hit, digest };
    const row = stmt.hashFind.get(Buffer.from(digest, "base64"));
    if (row === undefined) return undefined;
    const stored = row.token_sha256.toString("base64");
    cache.putTokenKey(stored, row.key_id);
    return { keyId: row.key_id, digest: stored };
  }

  /** Records one delivery of an event to a destination of this account. */
  addDelivery(d: Omit<EventDelivery, "seq">): void {
    this.#d.stmt.deliveryAdd.run({
      ...d,
      account: this.#account,
      payload: JSON.stringify(d.payload),
    } as never);
  }

  /** Every recorded delivery of this account, oldest first. */
  deliveries(): EventDelivery[] {
    return this.#d.stmt.deliveries
      .all({ account: this.#account })
      .map(({ account_id: _a, ...row }) => ({ ...row, payload: JSON.parse(row.payload) }));
  }

  /** Closes the database (a file database is flushed). */
  close(): void {
    if (this.#d.db.open) this.#d.db.close();
  }
}
