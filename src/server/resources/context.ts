/**
 * What the handlers and per-kind hooks of one request work with: the store, the caller, the account
 * and the server's base URL (for `uri` values, which are full URLs resolvable by GET on this server).
 */
import { fillPath, getKind, type KindDescriptor, kindOfId } from "../../model/index.js";
import type { Account } from "../account.js";
import type { ResourceStore, StoredObject } from "../store/resource-store.js";

/** The authenticated caller (docs/design.md section 5 > Auth). */
export interface Principal {
  /** The API key used (`ak_...`), or `bootstrap` for the bootstrap token given at start. */
  keyId: string;
  /** The User or Bot that owns the key (`usr_...` / `bot_...`). */
  ownerId: string;
  admin: boolean;
  /** The account of the key (`acct_...`): the only one the request sees. */
  accountId: string;
}

/** Per-request context. */
export interface RequestContext {
  /** The store as the caller's account sees it (objects of other accounts do not exist there). */
  store: ResourceStore;
  principal: Principal;
  account: Account;
  /** The server's public base URL (`--public-url`, default the listen address), no trailing slash; never the request's `Host`. */
  baseUrl: string;
  /** False while loading fixtures: objects that exist from the start emit no events. */
  emitEvents: boolean;
}

/** The collection path of an object (`/edges/https/edghts_1/routes` for a route). */
export function collectionPath(kind: KindDescriptor, parentId: string | null): string {
  return kind.parent === undefined ? kind.path : fillPath(kind.path, { edge_id: parentId ?? "" });
}

/** The full URL of a stored object. */
export function uriOfObject(ctx: RequestContext, obj: StoredObject): string {
  return `${ctx.baseUrl}${collectionPath(getKind(obj.kind), obj.parentId)}/${obj.id}`;
}

/**
 * The full URL of the object with this id, for Ref values (`{id, uri}`). An id that is not stored
 * (never for a valid reference) gets the path its prefix implies.
 */
export function uriOfId(ctx: RequestContext, id: string): string {
  const obj = ctx.store.get(id);
  if (obj !== undefined) return uriOfObject(ctx, obj);
  const kind = kindOfId(id);
  return kind === undefined || kind.parent !== undefined
    ? `${ctx.baseUrl}/${id}`
    : `${ctx.baseUrl}${kind.path}/${id}`;
}

/** A Ref object (docs/api.md > Conventions: `{id, uri}`). */
export function refTo(ctx: RequestContext, id: string): { id: string; uri: string } {
  return { id, uri: uriOfId(ctx, id) };
}

/** "IP policy", "certificate authority": a kind's title as used inside a sentence. */
export function titleInSentence(kind: KindDescriptor): string {
  const t = kind.title;
  return /^[A-Z][a-z]/.test(t) ? t[0]?.toLowerCase() + t.slice(1) : t;
}
