/**
 * Accounts (docs/server.md > Accounts and roles). Every object and API key belongs to one account,
 * and a request sees only its key's account (the store views of ./store/resource-store.ts). The
 * default account holds the fixtures and the bootstrap admin token; `createAccount` makes others,
 * `mintAdminKey` gives an account a new admin key (`tgw serve --mint-admin-key`, with file access
 * only). An account's settings: its abuse-report flag (docs/design.md section 5) and its admin user.
 */
import { newId, newToken, tokenHash } from "./ids.js";
import type { ResourceStore } from "./store/resource-store.js";

/** Settings of an account. */
export interface Account {
  /** `acct_...`. */
  id: string;
  /** Whether the account may use abuse reports (403 otherwise). */
  abuseReports: boolean;
}

/** Setting key of the user that owns the account's bootstrap admin key. */
export const ADMIN_USER_META = "admin_user_id";

/** The settings of the account a store sees. */
export function loadAccount(store: ResourceStore): Account {
  return { id: store.accountId, abuseReports: store.getMeta("abuse_reports") === "true" };
}

/** Changes the default account's settings (fixtures); unset fields are kept. */
export function saveAccount(store: ResourceStore, changes: Partial<Account>): void {
  if (changes.id !== undefined) store.renameAccount(changes.id);
  if (changes.abuseReports !== undefined) store.setMeta("abuse_reports", String(changes.abuseReports));
}

/**
 * The id of the account's admin user: the one recorded, else the first user with the admin flag,
 * else a user made now (`usr_admin` when that id is free).
 */
export function ensureAdminUser(store: ResourceStore): string {
  const known = store.getMeta(ADMIN_USER_META);
  if (known !== undefined && store.get(known)) return known;
  const admin = store.all("user").find((u) => u.body.admin === true);
  const id = admin?.id ?? (store.everSeen("usr_admin") ? newId("usr_") : "usr_admin");
  if (!admin) {
    store.insert("user", id, null, {
      description: "administrator (made at first start)",
      metadata: "",
      admin: true,
    });
  }
  store.setMeta(ADMIN_USER_META, id);
  return id;
}

/**
 * Stores a new API key of the account's admin user and returns its token (shown once, stored only
 * as its SHA-256).
 * @param description the key's description
 */
export function mintAdminKey(
  store: ResourceStore,
  description = "admin key (minted with file access)",
): { keyId: string; token: string } {
  return store.transaction(() => {
    const ownerId = ensureAdminUser(store);
    const token = newToken();
    const key = store.insert("api_key", newId("ak_"), null, { description, metadata: "", owner_id: ownerId });
    store.putTokenHash(key.id, tokenHash(token));
    return { keyId: key.id, token };
  });
}

/** Creates an account with an admin user and one admin key. */
export function createAccount(store: ResourceStore): { accountId: string; keyId: string; token: string } {
  const account = store.createAccount();
  const { keyId, token } = mintAdminKey(account, "first admin key of the account");
  return { accountId: account.accountId, keyId, token };
}
