/**
 * Minting an admin key with access to the data file only (`tgw serve --data FILE --mint-admin-key`),
 * the way back when every admin key was deleted: no network call, no running server needed (SQLite
 * serialises the write with a server that has the file open).
 */
import { existsSync } from "node:fs";
import { UsageError } from "../errors.js";
import { createAccount, mintAdminKey } from "./account.js";
import { ResourceStore } from "./store/resource-store.js";

/**
 * Adds an admin key to an existing data file.
 * @param account an account id, `new` for a new account, or undefined for the default account
 * @returns the new key's id, its account and its token (shown once; only its hash is stored)
 * @throws UsageError when the file or the account does not exist; DataKeyError for a missing or wrong key
 */
export function mintAdminKeyInFile(
  dataPath: string,
  dataKey: string | undefined,
  account?: string,
): { keyId: string; accountId: string; token: string } {
  if (!existsSync(dataPath)) throw new UsageError(`no data file at ${dataPath}`);
  const store = new ResourceStore(dataPath, { dataKey });
  try {
    if (account === "new") {
      return createAccount(store);
    }
    const target = account === undefined ? store : store.forAccount(account);
    if (!store.accountExists(target.accountId)) throw new UsageError(`no account ${account} in ${dataPath}`);
    const { keyId, token } = mintAdminKey(target);
    return { keyId, accountId: target.accountId, token };
  } finally {
    store.close();
  }
}
