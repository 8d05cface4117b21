/**
 * A child process for the cross-process lock tests. It opens a store through a factory module, says
 * `ready`, waits for `go` on stdin, takes the lock, adds one record, holds the lock for a while and
 * releases it. Every step is one JSON line on stdout with a wall-clock time.
 *
 * Usage: node --import tsx lock-child.ts <factory module> <location> <stack> <name> <holdMs> <timeoutMs>
 * The factory module exports `openStore(location: string, stack: string): StateStore`.
 * `holdMs` < 0: hold the lock until killed.
 */
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import type { StateStore } from "../../src/state/index.js";

const [factory, location, stack, name, holdMs, timeoutMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, name, at: Date.now(), ...extra })}\n`);

const { openStore } = (await import(pathToFileURL(factory).href)) as {
  openStore: (location: string, stack: string) => StateStore;
};
const store = openStore(location, stack);

say("ready");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === "go") break;

say("locking");
try {
  const unlock = await store.lock({ timeoutMs: Number(timeoutMs), holder: `lock-child ${name}` });
  say("locked");
  const snapshot = await store.read();
  snapshot.resources[`children.${name}`] = {
    address: `children.${name}`,
    kind: "child",
    id: `child_${process.pid}`,
    fingerprint: "0".repeat(64),
    appliedAt: new Date().toISOString(),
  };
  const written = await store.write(snapshot);
  say("wrote", { serial: written.serial });
  if (Number(holdMs) < 0) await new Promise(() => {});
  await sleep(Number(holdMs));
  say("unlocking");
  await unlock();
  process.exit(0);
} catch (err) {
  say("failed", { code: (err as { code?: string }).code, message: (err as Error).message });
  process.exit(1);
}
