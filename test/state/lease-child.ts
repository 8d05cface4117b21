/**
 * A child process for the fencing tests (test/state/conformance.ts, test/state/postgres-lease.test.ts):
 * opens a store through a factory module with a short lease (a PostgreSQL lock's lease, a state file
 * lock's stale time), takes the state lock, writes once, says `locked`; then on each stdin line:
 * `confirmed` asks, without I/O, whether its last confirmation of the lock still holds (what the
 * client asks right before a write's bytes go out), `assert` whether it may still write to the API
 * (what the engine asks before each API write), `write` writes the state again, `unlock` releases the
 * lock. It says what happened: `confirmed` with the answer, `held`, `wrote`, `unlocked`, or `refused`
 * with the error's code. One JSON line per step.
 *
 * Usage: node --import tsx lease-child.ts <factory module> <location> <stack> <lease ms>
 * The factory module exports `openStore(location: string, stack: string, leaseMs?: number): StateStore`.
 */
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import type { StateStore, Unlock } from "../../src/state/index.js";
import { canFence } from "../../src/state/store.js";

const [factory, location, stack, lease] = process.argv.slice(2) as [string, string, string, string];
const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, ...extra })}\n`);

const { openStore } = (await import(pathToFileURL(factory).href)) as {
  openStore: (location: string, stack: string, leaseMs?: number) => StateStore;
};
const store = openStore(location, stack, Number(lease));
const unlock: Unlock = await store.lock({ timeoutMs: 10_000, holder: "lease-child" });
await store.write(await store.read());
say("locked");
for await (const line of createInterface({ input: process.stdin })) {
  const command = line.trim();
  try {
    if (command === "confirmed") {
      say("confirmed", { value: canFence(store) ? store.lockStillConfirmed() : true });
    } else if (command === "assert") {
      if (canFence(store)) await store.assertLockHeld();
      say("held");
    } else if (command === "write") {
      const written = await store.write(await store.read());
      say("wrote", { serial: written.serial });
    } else if (command === "unlock") {
      await unlock();
      say("unlocked");
    }
  } catch (err) {
    say("refused", { code: (err as { code?: string }).code, message: (err as Error).message });
  }
}
