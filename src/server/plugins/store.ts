/**
 * Storage plugin: the SQLite-backed store (in memory, or the `--data` file, whose secrets are
 * encrypted with `dataKey`), seen from the default account; closed with the app (onClose). Requests
 * work on their own account's view of it (../routes/context.ts).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ResourceStore } from "../store/resource-store.js";

/** Options of this plugin (registered by ../app.ts). */
export interface StorePluginOptions {
  /** SQLite file; undefined for an in-memory store. */
  dataPath?: string | undefined;
  /** Key of the file's encrypted secrets (required with `dataPath`). */
  dataKey?: string | undefined;
}

async function storePlugin(app: FastifyInstance, opts: StorePluginOptions): Promise<void> {
  const store = new ResourceStore(opts.dataPath, { dataKey: opts.dataKey });
  app.decorate("store", store);
  app.addHook("onClose", async () => store.close());
}

export default fp(storePlugin, { name: "tgw-store" });
