/**
 * The PostgreSQL state store against a real server started by this file: the conformance suite that
 * the file store passes (./conformance.ts), then what only this store does: migrations, a lock that
 * dies with its holder, the history.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LockTimeoutError, StateIoError } from "../../src/state/index.js";
import { SCHEMA_VERSION } from "../../src/state/postgres/migrations.js";
import { PostgresStateStore } from "../../src/state/postgres/store.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { startLockChild } from "./child.js";
import { describeStateStoreConformance, record } from "./conformance.js";

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
      openWithLease: (leaseMs) => {
        const store = new PostgresStateStore(url, { stack, lockLeaseMs: leaseMs });
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

describe.skipIf(server === undefined)("PostgresStateStore only", () => {
  if (server === undefined) return;
  const schemaOf = (url: string) => new URL(url).searchParams.get("schema") as string;

  it("creates its tables on first use with versioned migrations, and refuses a schema newer than it knows", async () => {
    const url = server.freshSchemaUrl();
    const store = new PostgresStateStore(url, { stack: "m" });
    try {
      await store.read();
      const rows = await server.sql<{ version: number }>(
        `SELECT version FROM ${schemaOf(url)}.schema_migrations`,
      );
      expect(rows.map((r) => r.version)).toEqual([SCHEMA_VERSION]);
      await server.sql(
        `INSERT INTO ${schemaOf(url)}.schema_migrations (version, description) VALUES (999, 'future')`,
      );
      // Another process (this one remembers the schema as up to date).
      const other = startLockChild({
        factory: FACTORY,
        location: url,
        stack: "m",
        name: "older",
        holdMs: 0,
        timeoutMs: 0,
      });
      await other.waitFor("ready");
      other.go();
      const failed = await other.waitFor("failed");
      expect(failed.code).toBe(new StateIoError("", "", "").code);
      expect(failed.message).toMatch(/version 999, newer than this tgw knows .*upgrade tgw/);
    } finally {
      await store.close();
    }
  });

  it("releases the lock of a holder killed with SIGKILL at once, and never names a gone holder", async () => {
    const url = server.freshSchemaUrl();
    const child = startLockChild({
      factory: FACTORY,
      location: url,
      stack: "k",
      name: "killed",
      holdMs: -1,
      timeoutMs: 0,
    });
    await child.waitFor("ready");
    child.go();
    await child.waitFor("wrote");
    const store = new PostgresStateStore(url, { stack: "k" });
    try {
      const held = await store.lock({ timeoutMs: 0, holder: "tgw plan" }).catch((e: unknown) => e);
      expect(held).toBeInstanceOf(LockTimeoutError);
      expect((held as Error).message).toContain(`locked by lock-child killed (pid ${child.process.pid} on `);
      child.process.kill("SIGKILL");
      await child.exited;
      const unlock = await store.lock({ timeoutMs: 10_000, holder: "tgw apply" });
      await unlock();
      expect((await store.read()).resources["children.killed"]).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it("keeps the last N states (?history=N), newest first, with what produced each", async () => {
    const url = `${server.freshSchemaUrl()}&history=3`;
    const store = new PostgresStateStore(url, { stack: "h" });
    try {
      let s = await store.read();
      for (let i = 1; i <= 5; i++) {
        s.resources[`api_keys.k${i}`] = record(`api_keys.k${i}`);
        s = await store.write(s, {
          command: "tgw apply",
          revision: `rev${i}`,
          plan: [{ address: `api_keys.k${i}`, kind: "api_key", action: "create" }],
        });
      }
      const history = await store.history();
      expect(history.map((e) => [e.serial, e.revision, e.resources])).toEqual([
        [5, "rev5", 5],
        [4, "rev4", 4],
        [3, "rev3", 3],
      ]);
      expect(history[0]?.plan).toEqual([{ address: "api_keys.k5", kind: "api_key", action: "create" }]);
      expect(Object.keys((await store.snapshotAt(3))?.resources ?? {})).toHaveLength(3);
      expect(await store.snapshotAt(1)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
