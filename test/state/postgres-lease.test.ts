/**
 * The PostgreSQL state lock has a lease and fences its holder (issue 31 §3): a holder frozen (SIGSTOP)
 * for longer than the lease loses the lock to the next run, which takes it and writes; the frozen one,
 * woken, writes nothing, to the state or (the engine asks `assertLockHeld` first) to the API. A holder whose lock session is terminated writes nothing either: the run
 * stops at its next write and says so (`state_lock_lost`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStateStore } from "../../src/state/postgres/store.js";
import { startTestPostgres } from "../helpers/postgres.js";

const SCRIPT = fileURLToPath(new URL("./lease-child.ts", import.meta.url));
const LEASE_MS = 1500;

const server = await startTestPostgres();
afterAll(() => server?.stop());

/** The lease child, and a way to wait for its next line of a given event. */
function leaseChild(url: string, stack: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", SCRIPT, url, stack, String(LEASE_MS)],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  child.stdout?.on("data", (d) => {
    buffer += String(d);
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
  });
  const next = async (from: number) => {
    for (let i = 0; i < 3000; i++) {
      if (lines.length > from) return lines[from] as Record<string, unknown>;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`the lease child said nothing more; stderr:\n${stderr}`);
  };
  return { child, lines, next };
}

describe.skipIf(server === undefined)("the PostgreSQL state lock's lease", () => {
  if (server === undefined) return;

  it("a holder frozen longer than the lease loses the lock to the next run, and writes nothing once woken", async () => {
    const url = server.freshSchemaUrl();
    const holder = leaseChild(url, "frozen");
    const store = new PostgresStateStore(url, { stack: "frozen", lockLeaseMs: LEASE_MS });
    try {
      expect(await holder.next(0)).toMatchObject({ event: "locked" });
      holder.child.kill("SIGSTOP");
      // Waits for the lease to run out: the server ends the frozen holder's silent session.
      const unlock = await store.lock({ timeoutMs: 60_000, holder: "the next run" });
      const written = await store.write(await store.read());
      expect(written.serial).toBe(2);
      holder.child.kill("SIGCONT");
      // Neither an API write (the engine asks first) nor a state write goes through.
      holder.child.stdin?.write("assert\n");
      expect(await holder.next(1)).toMatchObject({ event: "refused", code: "state_lock_lost" });
      holder.child.stdin?.write("write\n");
      expect(await holder.next(2)).toMatchObject({ event: "refused", code: "state_lock_lost" });
      expect((await store.read()).serial).toBe(2);
      await unlock();
    } finally {
      holder.child.kill("SIGKILL");
      await store.close();
    }
  }, 90_000);

  it("a holder whose lock session is terminated stops at its next write and says so", async () => {
    const url = server.freshSchemaUrl();
    const holder = leaseChild(url, "terminated");
    try {
      expect(await holder.next(0)).toMatchObject({ event: "locked" });
      holder.child.stdin?.write("assert\n");
      expect(await holder.next(1)).toMatchObject({ event: "held" });
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
      holder.child.stdin?.write("write\n");
      const said = await holder.next(2);
      expect(said).toMatchObject({ event: "refused", code: "state_lock_lost" });
      expect(String(said.message)).toMatch(/the state lock of .* was lost while this run held it/);
    } finally {
      holder.child.kill("SIGKILL");
    }
  }, 90_000);
});
