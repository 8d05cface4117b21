/**
 * The tables of the PostgreSQL state store, created on first use by versioned migrations. Each
 * migration runs once per schema, in order, in one transaction with the other pending ones; the
 * versions applied are recorded in `<schema>.schema_migrations`. Two processes starting at once are
 * kept apart by a transaction-level advisory lock, so each migration runs exactly once.
 *
 * Tables (one per purpose, one row set per stack):
 * - `states`: the current state of each stack (the serialised snapshot, lineage and serial);
 * - `state_history`: the last N states of each stack, with the plan that produced each;
 * - `lock_holders`: who holds each advisory lock (the lock itself is PostgreSQL's, not a row).
 * @see docs/state.md
 */
import type { PoolClient } from "pg";
import { advisoryKey } from "./keys.js";

/** One schema change. `sql` receives the quoted schema name. */
interface Migration {
  version: number;
  description: string;
  sql: (schema: string) => string;
}

/** Every migration, oldest first. Never edit one that has shipped: add the next version. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "states, state history and lock holders",
    sql: (s) => `
      CREATE TABLE ${s}.states (
        stack text PRIMARY KEY,
        lineage text NOT NULL,
        serial integer NOT NULL CHECK (serial > 0),
        document text NOT NULL,
        revision text,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.state_history (
        id bigserial PRIMARY KEY,
        stack text NOT NULL,
        lineage text NOT NULL,
        serial integer NOT NULL,
        document text NOT NULL,
        plan jsonb,
        revision text,
        written_by text NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX state_history_stack ON ${s}.state_history (stack, id DESC);
      CREATE TABLE ${s}.lock_holders (
        lock_key bigint PRIMARY KEY,
        stack text NOT NULL,
        purpose text NOT NULL,
        holder text NOT NULL,
        pid integer NOT NULL,
        hostname text NOT NULL,
        since timestamptz NOT NULL,
        backend_pid integer NOT NULL
      );`,
  },
];

/** The newest schema version this tgw knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** `"tgw"`: an identifier quoted for SQL (names are checked by url.ts; quoting keeps them exact). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Brings `schema` up to the newest version (creating it if needed).
 * @returns the versions applied now (empty when it was up to date).
 * @throws Error when the schema is newer than this tgw (a newer tgw migrated it: upgrade tgw), or the
 * driver's error (e.g. permission denied to create the schema: see docs/state.md for the role's rights).
 */
export async function migrate(client: PoolClient, schema: string): Promise<number[]> {
  const s = quoteIdent(schema);
  const current = await appliedVersion(client, schema);
  if (current === SCHEMA_VERSION) return [];
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [advisoryKey("migrate", schema, "")]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    // Again, under the lock: another process may have migrated meanwhile.
    const done = await appliedVersion(client, schema);
    if (done > SCHEMA_VERSION) throw newerSchema(schema, done);
    const applied: number[] = [];
    for (const m of MIGRATIONS.filter((m) => m.version > done)) {
      await client.query(m.sql(s));
      await client.query(`INSERT INTO ${s}.schema_migrations (version, description) VALUES ($1, $2)`, [
        m.version,
        m.description,
      ]);
      applied.push(m.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}

/** The highest version recorded in `schema`, 0 when the schema or its table does not exist. */
async function appliedVersion(client: PoolClient, schema: string): Promise<number> {
  const table = await client.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [
    `${quoteIdent(schema)}.schema_migrations`,
  ]);
  if (!table.rows[0]?.exists) return 0;
  const r = await client.query<{ v: number | null }>(
    `SELECT max(version) AS v FROM ${quoteIdent(schema)}.schema_migrations`,
  );
  const v = r.rows[0]?.v ?? 0;
  if (v > SCHEMA_VERSION) throw newerSchema(schema, v);
  return v;
}

function newerSchema(schema: string, version: number): Error {
  return new Error(
    `schema "${schema}" is at version ${version}, newer than this tgw knows (${SCHEMA_VERSION}): upgrade tgw`,
  );
}
