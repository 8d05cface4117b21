/**
 * Parsed objects, the positions of each list, account settings and the API key of each token hash
 * found kept in memory between requests, so that a GET, a list page, or the account or key lookup of
 * every request does not fetch and parse the same rows again: better-sqlite3
 * builds every column of every row as a JavaScript value (most of a list request's time), where a hit
 * is a map lookup.
 *
 * What keeps it exact (the store, ./resource-store.ts, follows these rules):
 * - it is filled only by reads made outside a transaction, so a transaction that is rolled back
 *   leaves nothing behind;
 * - every write of the store drops what it touches (an update or delete drops that object, a delete
 *   its list, a setting that setting, a key's delete every token hash, an account rename everything)
 *   before it writes; an insert
 *   outside a transaction adds its position to its list, inside one drops the list;
 * - writes of OTHER connections to the same data file (a second server, `tgw serve --mint-admin-key`
 *   while a server runs) are seen through SQLite's `PRAGMA data_version`, which changes when another
 *   connection commits: `sync()` drops everything then. An in-memory database has no other connection;
 * - cached objects are deeply frozen: code that tried to change one would throw instead of changing
 *   what later requests see.
 * Bounded: past MAX_OBJECTS objects it starts again from empty.
 */
import type Database from "better-sqlite3";
import type { StoredObject } from "./stored-object.js";

/** Most objects kept; past it the cache is emptied (a plain bound: a full cache is refilled by reads). */
export const MAX_OBJECTS = 100_000;

/** A cached object and its account. */
export interface CachedObject {
  obj: StoredObject;
  accountId: string;
}

/** Freezes a JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const listKey = (accountId: string, kind: string, parentId: string | null) =>
  `${accountId}\0${kind}\0${parentId ?? ""}`;

/** The cache of one database connection (shared by every account view of it). */
export class ObjectCache {
  readonly #db: Database.Database;
  readonly #dataVersion: Database.Statement<[], number> | undefined;
  #version: number | undefined;
  readonly #byId = new Map<string, CachedObject>();
  readonly #bySeq = new Map<number, CachedObject>();
  // Key `<account>\0<setting>`; a value of undefined records that the setting is not set.
  readonly #settings = new Map<string, string | undefined>();
  // Key `<account>\0<kind>\0<parent>`: the positions (`seq`) of every object of that list, ascending.
  readonly #lists = new Map<string, number[]>();
  // Key: a token's SHA-256 in base64; value: the id of its API key.
  readonly #tokenKeys = new Map<string, string>();
  // Key `<account>\0<kind>`: a value built from every object of a kind (`derived`).
  readonly #derived = new Map<string, unknown>();

  /**
   * @param db the connection whose reads are cached
   * @param shared whether other connections may write the same database (a file): then every
   *   `sync()` asks SQLite whether one did
   */
  constructor(db: Database.Database, shared: boolean) {
    this.#db = db;
    this.#dataVersion = shared ? db.prepare<[], number>("PRAGMA data_version").pluck(true) : undefined;
  }

  /** Drops everything when another connection committed since the last call. Call before reading. */
  sync(): void {
    if (this.#dataVersion === undefined) return;
    const version = this.#dataVersion.get();
    if (version !== this.#version) {
      this.clear();
      this.#version = version;
    }
  }

  /** The cached object with this id, of any account. */
  byId(id: string): CachedObject | undefined {
    return this.#byId.get(id);
  }

  /** The cached object at this `seq`, of any account. */
  bySeq(seq: number): CachedObject | undefined {
    return this.#bySeq.get(seq);
  }

  /** Keeps an object just read (frozen from now on); ignored inside a transaction. */
  put(obj: StoredObject, accountId: string): void {
    if (this.#db.inTransaction) return;
    if (this.#byId.size >= MAX_OBJECTS) {
      this.#byId.clear();
      this.#bySeq.clear();
    }
    const entry = { obj: deepFreeze(obj), accountId };
    this.#byId.set(obj.id, entry);
    this.#bySeq.set(obj.seq, entry);
  }

  /** Forgets an object about to be changed or deleted (and what was derived from its kind). */
  drop(id: string): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) {
      // Its kind is not known here: nothing derived may outlive the write.
      this.#derived.clear();
      return;
    }
    this.#derived.delete(`${entry.accountId}\0${entry.obj.kind}`);
    this.#byId.delete(id);
    this.#bySeq.delete(entry.obj.seq);
  }

  /** A cached setting: `{value}` (value undefined when not set), or undefined when not cached. */
  setting(accountId: string, key: string): { value: string | undefined } | undefined {
    const k = `${accountId}\0${key}`;
    return this.#settings.has(k) ? { value: this.#settings.get(k) } : undefined;
  }

  /** Keeps a setting just read (undefined: not set); ignored inside a transaction. */
  putSetting(accountId: string, key: string, value: string | undefined): void {
    if (!this.#db.inTransaction) this.#settings.set(`${accountId}\0${key}`, value);
  }

  /** Forgets a setting about to be written. */
  dropSetting(accountId: string, key: string): void {
    this.#settings.delete(`${accountId}\0${key}`);
  }

  /** The positions of every object of a list, ascending (do not change the array), or undefined. */
  list(accountId: string, kind: string, parentId: string | null): readonly number[] | undefined {
    return this.#lists.get(listKey(accountId, kind, parentId));
  }

  /** Keeps the positions of a list just read, ascending; ignored inside a transaction. */
  putList(accountId: string, kind: string, parentId: string | null, seqs: number[]): void {
    if (!this.#db.inTransaction) this.#lists.set(listKey(accountId, kind, parentId), seqs);
  }

  /**
   * Adds the position of an object just inserted to its list. Inside a transaction, which may still
   * be rolled back, the list is forgotten instead: a list never misses an object that exists.
   */
  inserted(accountId: string, kind: string, parentId: string | null, seq: number): void {
    this.#derived.delete(`${accountId}\0${kind}`);
    const key = listKey(accountId, kind, parentId);
    if (this.#db.inTransaction) this.#lists.delete(key);
    // A new `seq` is the largest so far (AUTOINCREMENT): the list stays ascending.
    else this.#lists.get(key)?.push(seq);
  }

  /** Forgets a list whose object was just deleted. */
  dropList(accountId: string, kind: string, parentId: string | null): void {
    this.#derived.delete(`${accountId}\0${kind}`);
    this.#lists.delete(listKey(accountId, kind, parentId));
  }

  /**
   * `build()`'s value, built from the objects of `kind` in the account, kept until an object of that
   * kind is inserted, changed or deleted (or everything is dropped); built afresh, and not kept, inside a
   * transaction. The value must not be changed.
   */
  derived<T>(accountId: string, kind: string, build: () => T): T {
    const key = `${accountId}\0${kind}`;
    if (this.#derived.has(key)) return this.#derived.get(key) as T;
    const value = build();
    if (!this.#db.inTransaction) this.#derived.set(key, value);
    return value;
  }

  /** The API key of a token hash (base64) found before, or undefined. */
  tokenKey(digest: string): string | undefined {
    return this.#tokenKeys.get(digest);
  }

  /** Keeps the API key of a token hash just read; ignored inside a transaction. */
  putTokenKey(digest: string, keyId: string): void {
    if (this.#db.inTransaction) return;
    if (this.#tokenKeys.size >= MAX_OBJECTS) this.#tokenKeys.clear();
    this.#tokenKeys.set(digest, keyId);
  }

  /** Forgets every token hash (a key was deleted: rare, so not one by one). */
  dropTokenKeys(): void {
    this.#tokenKeys.clear();
  }

  /** Forgets everything. */
  clear(): void {
    this.#tokenKeys.clear();
    this.#derived.clear();
    this.#byId.clear();
    this.#bySeq.clear();
    this.#settings.clear();
    this.#lists.clear();
  }
}
