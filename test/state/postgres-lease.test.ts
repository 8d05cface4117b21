/**
 * The PostgreSQL state lock has a lease and fences its holder (issue 31 §3). A holder frozen (SIGSTOP)
 * for longer than the lease loses the lock to the next run and, woken, writes nothing: the conformance
 * suite tests that of every store (./conformance.ts > fencing). Here, what only PostgreSQL has: a
 * holder whose lock session is terminated writes nothing either; the run stops at its next write and
 * says so (`state_lock_lost`).
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startTestPostgres } from "../helpers/postgres.js";
import { startLeaseChild } from "./child.js";

const FACTORY = fileURLToPath(new URL("./postgres-store-factory.ts", import.meta.url));
const LEASE_MS = 1500;

const server = await startTestPostgres();
afterAll(() => server?.stop());

describe.skipIf(server === undefined)("the PostgreSQL state lock's lease", () => {
  if (server === undefined) return;

  it("a holder whose lock session is terminated stops at its next write and says so", async () => {
    const url = server.freshSchemaUrl();
    const holder = startLeaseChild(FACTORY, url, "terminated", LEASE_MS);
    try {
      expect(await holder.line(0)).toMatchObject({ event: "locked" });
      holder.send("assert");
      expect(await holder.line(1)).toMatchObject({ event: "held" });
      const killed = await server.sql<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'tgw (lock)'",
      );
      expect(killed[0]?.n).toBe(1);
      // pg_terminate_backend only signals the session: write once it has gone.
      for (let i = 0; i < 500; i++) {
        const left = await server.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'tgw (lock)'",
        );
        if (left[0]?.n === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      holder.send("write");
      const said = await holder.line(2);
      expect(said).toMatchObject({ event: "refused", code: "state_lock_lost" });
      expect(String(said.message)).toMatch(/the state lock of .* was lost while this run held it/);
    } finally {
      holder.process.kill("SIGKILL");
    }
  }, 90_000);
});
