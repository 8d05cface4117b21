/**
 * Storage plugin: the SQLite-backed store (in memory, or the `--data` file) and the account it
 * serves, closed with the app (onClose).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { loadAccount } from "../account.js";
import { ResourceStore } from "../store/resource-store.js";

/** Options of this plugin (registered by ../app.ts). */
export interface StorePluginOptions {
  /** SQLite file; undefined for an in-memory store. */
  dataPath?: string | undefined;
}

async function storePlugin(app: FastifyInstance, opts: StorePluginOptions): Promise<void> {
  const store = new ResourceStore(opts.dataPath);
  app.decorate("store", store);
  app.decorate("account", loadAccount(store));
  app.addHook("onClose", async () => store.close());
}

export default fp(storePlugin, { name: "tgw-store" });
