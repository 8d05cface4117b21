/**
 * The one account a reference server serves: its id (the `account_id` of event payloads) and its
 * flags (DECISIONS.md section 5: abuse reports need an account flag). Kept in the store's `meta`
 * table, so a `--data` file remembers them; a fixtures file may set them.
 */
import { randomAlphanumeric } from "./ids.js";
import type { ResourceStore } from "./store/resource-store.js";

/** Settings of the account. */
export interface Account {
  /** `acct_...`. */
  id: string;
  /** Whether the account may use abuse reports (403 otherwise). */
  abuseReports: boolean;
}

/** Reads the account, creating its id on first start (abuse reports off). */
export function loadAccount(store: ResourceStore): Account {
  let id = store.getMeta("account_id");
  if (id === undefined) {
    id = `acct_${randomAlphanumeric(27)}`;
    store.setMeta("account_id", id);
  }
  return { id, abuseReports: store.getMeta("abuse_reports") === "true" };
}

/** Changes the account's settings (fixtures); unset fields are kept. */
export function saveAccount(store: ResourceStore, changes: Partial<Account>): void {
  if (changes.id !== undefined) store.setMeta("account_id", changes.id);
  if (changes.abuseReports !== undefined) store.setMeta("abuse_reports", String(changes.abuseReports));
}
