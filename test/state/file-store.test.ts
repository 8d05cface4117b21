import { mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileStateStore, LockTimeoutError, type StateSnapshot } from "../../src/state/index.js";
import { readLockInfo } from "../../src/state/lock-info.js";
import { openStateStore } from "../../src/state/open.js";
import { describeStateStoreConformance, record } from "./conformance.js";

const FACTORY = fileURLToPath(new URL("./file-store-factory.ts", import.meta.url));

describeStateStoreConformance("FileStateStore", async (stack) => {
  const dir = await mkdtemp(join(tmpdir(), "tgw-state-"));
  const path = join(dir, ".tgw", "state.json");
  return {
    open: () => new FileStateStore(path, { stack, warn: () => {} }),
    openWithLease: (leaseMs) => new FileStateStore(path, { stack, warn: () => {}, staleMs: leaseMs }),
    child: { module: FACTORY, location: path },
    deleteState: () => rm(path),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe("FileStateStore: what a writer reads next", () => {
  it("is what it wrote, with frozen records, until another store writes; then what that one wrote", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tgw-state-own-"));
    const path = join(dir, ".tgw", "state.json");
    const header = ({ resources: _r, ...rest }: StateSnapshot) => rest;
    try {
      const a = new FileStateStore(path, { stack: "own", warn: () => {} });
      const empty = await a.read();
      await a.writeChanges(empty, { set: [record("api_keys.a")], removed: [] });
      await a.writeChanges({ ...header(empty), serial: 1 }, { set: [record("api_keys.b")], removed: [] });
      const mine = await a.read();
      expect(mine.serial).toBe(2);
      expect(Object.keys(mine.resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);
      expect(Object.isFrozen(mine.resources["api_keys.a"])).toBe(true);
      expect(() => {
        (mine.resources["api_keys.a"] as { id: string }).id = "ak_changed";
      }).toThrow(TypeError);
      delete mine.resources["api_keys.b"];
      expect(Object.keys((await a.read()).resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);

      const other = new FileStateStore(path, { stack: "own", warn: () => {} });
      const seen = await other.read();
      await other.writeChanges(seen, { set: [record("api_keys.c")], removed: ["api_keys.a"] });
      const after = await a.read();
      expect(after.serial).toBe(3);
      expect(Object.keys(after.resources).sort()).toEqual(["api_keys.b", "api_keys.c"]);
      const whole = await other.read();
      await other.write({ ...whole, resources: { "api_keys.d": record("api_keys.d") } });
      expect(Object.keys((await a.read()).resources)).toEqual(["api_keys.d"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("FileStateStore: fencing", () => {
  it("a store whose lock was taken over refuses to append and to check, and its unlock leaves the new holder's lock", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tgw-state-fenced-"));
    const path = join(dir, ".tgw", "state.json");
    const open = () => new FileStateStore(path, { stack: "fenced", staleMs: 2000, warn: () => {} });
    const header = ({ resources: _r, ...rest }: StateSnapshot) => rest;
    try {
      const a = open();
      const unlockA = await a.lock({ timeoutMs: 0, holder: "a" });
      const empty = await a.read();
      await a.writeChanges(empty, { set: [record("api_keys.a")], removed: [] });
      await a.assertLockHeld();
      // As if a had been frozen past the stale time: its lock directory looks stale, and b takes it.
      await utimes(`${path}.lock`, 0, 0);
      const b = open();
      const unlockB = await b.lock({ timeoutMs: 0, holder: "b" });
      await b.writeChanges({ ...header(empty), serial: 1 }, { set: [record("api_keys.b")], removed: [] });
      // Past the quarter of a second a holder goes without looking at its directory.
      await sleep(300);
      await expect(a.assertLockHeld()).rejects.toMatchObject({ code: "state_lock_lost" });
      expect(a.lockStillConfirmed()).toBe(false);
      await expect(
        a.writeChanges({ ...header(empty), serial: 2 }, { set: [record("api_keys.c")], removed: [] }),
      ).rejects.toMatchObject({ code: "state_lock_lost" });
      await unlockA();
      expect((await readLockInfo(`${path}.lock-info`))?.holder).toBe("b");
      await expect(open().lock({ timeoutMs: 0, holder: "c" })).rejects.toBeInstanceOf(LockTimeoutError);
      await b.assertLockHeld();
      const state = await b.read();
      expect([state.serial, Object.keys(state.resources).sort()]).toEqual([2, ["api_keys.a", "api_keys.b"]]);
      await unlockB();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("takes its stale time from TGW_LOCK_LEASE, at least 2s", async () => {
    const location = { kind: "file" as const, path: join(tmpdir(), "tgw-lease-unused", "state.json") };
    const before = process.env.TGW_LOCK_LEASE;
    try {
      process.env.TGW_LOCK_LEASE = "1500ms";
      await expect(openStateStore(location, {})).rejects.toThrow(
        "TGW_LOCK_LEASE must be at least 2s for a state file, got 1500ms",
      );
      process.env.TGW_LOCK_LEASE = "2s";
      expect((await openStateStore(location, {})).store).toBeInstanceOf(FileStateStore);
    } finally {
      if (before === undefined) delete process.env.TGW_LOCK_LEASE;
      else process.env.TGW_LOCK_LEASE = before;
    }
  });
});
