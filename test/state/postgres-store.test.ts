/**
 * The PostgreSQL state store against a real server started by this file: the conformance suite that
 * the file store passes (./conformance.ts), then what only this store does (./postgres-extra.ts).
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe } from "vitest";
import { PostgresStateStore } from "../../src/state/postgres/store.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { describeStateStoreConformance } from "./conformance.js";

const FACTORY = fileURLToPath(new URL("./postgres-store-factory.ts", import.meta.url));

const server = await startTestPostgres();
afterAll(() => server?.stop());

describe.skipIf(server === undefined)("PostgreSQL", () => {
  if (server === undefined) return;
  describeStateStoreConformance("PostgresStateStore", (stack) => {
    const url = server.freshSchemaUrl();
    const schema = new URL(url).searchParams.get("schema") as string;
    const stores: PostgresStateStore[] = [];
    return {
      open: () => {
        const store = new PostgresStateStore(url, { stack });
        stores.push(store);
        return store;
      },
      child: { module: FACTORY, location: url },
      deleteState: async () => {
        await server.sql(`DELETE FROM ${schema}.states WHERE stack = $1`, [stack]);
      },
      cleanup: async () => {
        await Promise.all(stores.map((s) => s.close()));
        await server.sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    };
  });
});
