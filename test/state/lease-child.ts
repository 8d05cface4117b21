/**
 * A child process for test/state/postgres-lease.test.ts: takes the state lock of a PostgreSQL state
 * with a short lease, writes once, says `locked`, then writes again on each `write` line of stdin, or
 * asks whether it may still write to the API on each `assert` line (what the engine asks before each
 * API write), and says what happened (`wrote`, `held`, or `refused` with the error's code). One JSON
 * line per step.
 *
 * Usage: node --import tsx lease-child.ts <state URL> <stack> <lease ms>
 */
import { createInterface } from "node:readline";
import { PostgresStateStore } from "../../src/state/postgres/store.js";

const [url, stack, lease] = process.argv.slice(2) as [string, string, string];
const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, ...extra })}\n`);

const store = new PostgresStateStore(url, { stack, lockLeaseMs: Number(lease) });
await store.lock({ timeoutMs: 10_000, holder: "lease-child" });
await store.write(await store.read());
say("locked");
for await (const line of createInterface({ input: process.stdin })) {
  const command = line.trim();
  try {
    if (command === "assert") {
      await store.assertLockHeld();
      say("held");
    } else if (command === "write") {
      const written = await store.write(await store.read());
      say("wrote", { serial: written.serial });
    }
  } catch (err) {
    say("refused", { code: (err as { code?: string }).code, message: (err as Error).message });
  }
}
