/**
 * The state store conformance suite: what every `StateStore` implementation must do (src/state/store.ts,
 * docs/state.md). The file store runs it in ./file-store.test.ts; a Postgres store will run the same.
 *
 * Usage:
 * ```ts
 * describeStateStoreConformance("FileStateStore", async (stack) => {
 *   const path = join(await mkdtemp(...), ".tgw", "state.json");
 *   return { open: () => new FileStateStore(path, { stack }), child: { module, location: path } };
 * });
 * ```
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { TgwError } from "../../src/errors.js";
import {
  LockTimeoutError,
  STATE_FORMAT_VERSION,
  StateConflictError,
  type StateRecord,
  type StateSnapshot,
  type StateStore,
} from "../../src/state/index.js";
import { canFence } from "../../src/state/store.js";
import { startLeaseChild, startLockChild } from "./child.js";

/** One fresh, empty state location, and how to open stores on it. */
export interface StateStoreTarget {
  /**
   * A new store object on this state. Two stores from one target behave like two users of the same
   * state (two `tgw` processes): they share the stored snapshot and the lock.
   */
  open(): StateStore;
  /**
   * For the cross-process tests: a module exporting `openStore(location: string, stack: string,
   * leaseMs?: number): StateStore` and the location to pass it. Omitted: those tests are skipped.
   */
  child?: { module: string; location: string };
  /**
   * A new store object on this state whose lock has a lease of `leaseMs` (a PostgreSQL lock's lease, a
   * state file lock's stale time), as `child.module`'s `openStore(location, stack, leaseMs)` opens in the
   * child. Omitted: the fencing test is skipped.
   */
  openWithLease?(leaseMs: number): StateStore;
  /** Deletes the stored state (as a user deleting `.tgw/state.json` would). Omitted: that test is skipped. */
  deleteState?(): Promise<void>;
  /** Removes what the target created. */
  cleanup?(): Promise<void>;
}

const digest = (c: string) => c.repeat(64);

/** A record as the engine writes it. */
export function record(address: string, extra: Partial<StateRecord> = {}): StateRecord {
  return {
    address,
    kind: "api_key",
    id: `ak_${address.replace(/\W/g, "")}`,
    fingerprint: digest("a"),
    appliedAt: "2025-01-02T03:04:05.000Z",
    ...extra,
  };
}

function withRecords(snapshot: StateSnapshot, ...records: StateRecord[]): StateSnapshot {
  const next = structuredClone(snapshot);
  for (const r of records) next.resources[r.address] = r;
  return next;
}

/**
 * Registers the conformance tests of a state store implementation.
 * @param name shown in the test names.
 * @param makeStore gives a fresh, empty state location for the stack name it receives.
 */
export function describeStateStoreConformance(
  name: string,
  makeStore: (stack: string) => Promise<StateStoreTarget> | StateStoreTarget,
): void {
  describe(`${name} (state store conformance)`, () => {
    const targets: StateStoreTarget[] = [];
    const unlocks: (() => Promise<void>)[] = [];

    async function target(stack = "web"): Promise<StateStoreTarget> {
      const t = await makeStore(stack);
      targets.push(t);
      return t;
    }

    afterEach(async () => {
      await Promise.all(unlocks.splice(0).map((u) => u()));
      await Promise.all(targets.splice(0).map((t) => t.cleanup?.()));
    });

    describe("read and write", () => {
      it("reads an empty state before the first write: serial 0, no resources, a random lineage", async () => {
        const t = await target("payments");
        const store = t.open();
        const a = await store.read();
        const b = await t.open().read();
        expect(a).toMatchObject({
          version: STATE_FORMAT_VERSION,
          serial: 0,
          stack: "payments",
          resources: {},
        });
        expect(a.lineage).toMatch(/\S/);
        expect(b.lineage).not.toBe(a.lineage);
        // One store agrees with itself while nothing is stored, so a caller can tell nothing moved.
        expect((await store.read()).lineage).toBe(a.lineage);
      });

      it("gives a new lineage to a state started again after it was deleted", async () => {
        const t = await target();
        const store = t.open();
        const first = await store.write(withRecords(await store.read(), record("api_keys.a")));
        await t.deleteState?.();
        if (t.deleteState === undefined) return;
        const again = await store.read();
        expect(again.serial).toBe(0);
        expect(again.lineage).not.toBe(first.lineage);
      });

      it("round-trips a snapshot: what write returns is what every store reads next", async () => {
        const t = await target();
        const store = t.open();
        const empty = await store.read();
        const snapshot = withRecords(
          empty,
          record("tls_certificates.web", {
            kind: "tls_certificate",
            id: "cert_2abc",
            writeOnly: { private_key_pem: digest("b") },
            dependsOn: ["certificate_authorities.root"],
          }),
          record("api_keys.ci"),
        );
        snapshot.listing = { counts: { api_key: 1113, tls_certificate: 1 }, unrecorded: ["tls_certificate"] };
        const written = await store.write(snapshot);
        expect(written).toEqual({ ...snapshot, serial: 1 });
        expect(await store.read()).toEqual(written);
        expect(await t.open().read()).toEqual(written);
      });

      it("increments the serial on every write and keeps the lineage", async () => {
        const t = await target();
        const store = t.open();
        let snapshot = await store.read();
        const lineage = snapshot.lineage;
        for (const serial of [1, 2, 3]) {
          snapshot = await store.write(withRecords(snapshot, record(`api_keys.k${serial}`)));
          expect(snapshot.serial).toBe(serial);
          expect(snapshot.lineage).toBe(lineage);
        }
        expect(Object.keys((await t.open().read()).resources)).toHaveLength(3);
      });

      it("removes records that the written snapshot no longer has", async () => {
        const t = await target();
        const store = t.open();
        const first = await store.write(
          withRecords(await store.read(), record("api_keys.a"), record("api_keys.b")),
        );
        const next = structuredClone(first);
        delete next.resources["api_keys.a"];
        await store.write(next);
        expect(Object.keys((await store.read()).resources)).toEqual(["api_keys.b"]);
      });

      it("hands out copies: changing a snapshot after write or read does not change the state", async () => {
        const t = await target();
        const store = t.open();
        const input = withRecords(await store.read(), record("api_keys.a"));
        const written = await store.write(input);
        input.resources["api_keys.a"] = record("api_keys.a", { id: "ak_changed_input" });
        written.resources["api_keys.a"] = record("api_keys.a", { id: "ak_changed_output" });
        const read = await store.read();
        read.resources = {};
        expect((await store.read()).resources["api_keys.a"]?.id).toBe(record("api_keys.a").id);
      });
    });

    describe("conflicts", () => {
      it("refuses a write from a snapshot whose serial is no longer the stored one", async () => {
        const t = await target();
        const mine = t.open();
        const theirs = t.open();
        const base = await mine.write(withRecords(await mine.read(), record("api_keys.a")));
        const stale = await theirs.read();
        await mine.write(withRecords(base, record("api_keys.b")));
        const err = await theirs.write(withRecords(stale, record("api_keys.c"))).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StateConflictError);
        expect((err as TgwError).code).toBe("state_conflict");
        expect((err as TgwError).exitCode).toBe(1);
        expect((err as Error).message).toContain("serial 1");
        expect((err as Error).message).toContain("serial 2");
        const now = await t.open().read();
        expect(now.serial).toBe(2);
        expect(Object.keys(now.resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);
      });

      it("refuses a write of another lineage, and a first write after someone else's", async () => {
        const t = await target();
        const a = t.open();
        const b = t.open();
        const emptyA = await a.read();
        const emptyB = await b.read();
        const stored = await a.write(withRecords(emptyA, record("api_keys.a")));
        // B read before A created the state: its snapshot has another lineage and serial 0.
        await expect(b.write(withRecords(emptyB, record("api_keys.b")))).rejects.toBeInstanceOf(
          StateConflictError,
        );
        await expect(b.write({ ...stored, lineage: randomUUID() })).rejects.toBeInstanceOf(
          StateConflictError,
        );
        expect(await t.open().read()).toEqual(stored);
      });

      it("lets exactly one of several concurrent writers of one snapshot win", async () => {
        const t = await target();
        const stores = Array.from({ length: 5 }, () => t.open());
        const base = await stores[0]?.write(withRecords(await t.open().read(), record("api_keys.base")));
        const results = await Promise.allSettled(
          stores.map(async (s, i) => s.write(withRecords(await s.read(), record(`api_keys.w${i}`)))),
        );
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r) => r.status === "rejected");
        expect(won).toHaveLength(1);
        for (const r of lost) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);
        const now = await t.open().read();
        expect(now.serial).toBe((base?.serial ?? 0) + 1);
        expect(Object.keys(now.resources)).toHaveLength(2);
      });

      it("refuses to store a secret or anything outside the format, and keeps the state as it was", async () => {
        const t = await target();
        const store = t.open();
        const stored = await store.write(withRecords(await store.read(), record("api_keys.a")));
        const withToken = withRecords(stored, {
          ...record("api_keys.b"),
          token: "tgw_secret",
        } as StateRecord);
        await expect(store.write(withToken)).rejects.toThrow(/token/);
        const pemAsDigest = withRecords(
          stored,
          record("tls_certificates.c", { writeOnly: { private_key_pem: "-----BEGIN PRIVATE KEY-----" } }),
        );
        await expect(store.write(pemAsDigest)).rejects.toThrow(/private_key_pem/);
        expect(await store.read()).toEqual(stored);
      });
    });

    describe("lock", () => {
      it("is exclusive: a second taker with timeout 0 fails at once, naming the holder and the state", async () => {
        const t = await target();
        const a = t.open();
        const unlock = await a.lock({ timeoutMs: 0, holder: "tgw apply" });
        unlocks.push(unlock);
        const err = await t
          .open()
          .lock({ timeoutMs: 0, holder: "tgw plan" })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(LockTimeoutError);
        expect((err as TgwError).code).toBe("state_locked");
        expect((err as TgwError).exitCode).toBe(1);
        expect((err as Error).message).toContain(a.location);
        expect((err as Error).message).toMatch(
          new RegExp(`locked by tgw apply \\(pid ${process.pid} on .+, since [0-9: -]+\\)`),
        );
        await unlock();
        const again = await t.open().lock({ timeoutMs: 0, holder: "tgw plan" });
        unlocks.push(again);
      });

      it("makes the second taker wait until the holder unlocks", async () => {
        const t = await target();
        const unlock = await t.open().lock({ timeoutMs: 0, holder: "tgw apply" });
        setTimeout(() => void unlock(), 300);
        const started = Date.now();
        unlocks.push(await t.open().lock({ timeoutMs: 10_000, holder: "tgw apply" }));
        const waited = Date.now() - started;
        expect(waited).toBeGreaterThanOrEqual(250);
      });

      it("gives up after the timeout and says how long it waited", async () => {
        const t = await target();
        unlocks.push(await t.open().lock({ timeoutMs: 0, holder: "tgw apply" }));
        const started = Date.now();
        const err = await t
          .open()
          .lock({ timeoutMs: 400, holder: "tgw apply" })
          .catch((e: unknown) => e);
        expect(Date.now() - started).toBeGreaterThanOrEqual(400);
        expect(err).toBeInstanceOf(LockTimeoutError);
        expect((err as Error).message).toMatch(/waited 0\.4s/);
      });

      it("stops waiting as soon as the signal is aborted, with the signal's reason", async () => {
        const t = await target();
        unlocks.push(await t.open().lock({ timeoutMs: 0, holder: "tgw apply" }));
        const controller = new AbortController();
        const reason = new Error("shutting down");
        setTimeout(() => controller.abort(reason), 100);
        // Had it not stopped, it would end after 10 s with a LockTimeoutError, not the reason.
        const err = await t
          .open()
          .lock({ timeoutMs: 10_000, holder: "tgw watch", signal: controller.signal })
          .catch((e: unknown) => e);
        expect(err).toBe(reason);
      });

      it("unlock is idempotent and never releases a later holder's lock", async () => {
        const t = await target();
        const unlockA = await t.open().lock({ timeoutMs: 0, holder: "a" });
        await unlockA();
        await unlockA();
        const unlockB = await t.open().lock({ timeoutMs: 0, holder: "b" });
        unlocks.push(unlockB);
        await unlockA();
        await expect(t.open().lock({ timeoutMs: 0, holder: "c" })).rejects.toBeInstanceOf(LockTimeoutError);
        await unlockB();
        await unlockB();
        unlocks.push(await t.open().lock({ timeoutMs: 0, holder: "c" }));
      });

      it("lets the holder write, and the next holder see that write", async () => {
        const t = await target();
        const a = t.open();
        const unlock = await a.lock({ timeoutMs: 0, holder: "tgw apply" });
        const written = await a.write(withRecords(await a.read(), record("api_keys.a")));
        await unlock();
        const b = t.open();
        unlocks.push(await b.lock({ timeoutMs: 0, holder: "tgw apply" }));
        expect(await b.read()).toEqual(written);
      });

      it.skipIf(process.env.TGW_SKIP_CHILD_TESTS)(
        "excludes other processes: two child processes never hold it at once, and neither loses a write",
        async () => {
          const t = await target("children");
          if (t.child === undefined) return;
          const children = ["one", "two"].map((n) =>
            startLockChild({
              factory: t.child?.module as string,
              location: t.child?.location as string,
              stack: "children",
              name: n,
              holdMs: 400,
              timeoutMs: 20_000,
            }),
          );
          await Promise.all(children.map((c) => c.waitFor("ready")));
          for (const c of children) c.go();
          expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0]);
          const spans = children
            .map((c) => ({
              locked: c.events.find((e) => e.event === "locked")?.at as number,
              unlocking: c.events.find((e) => e.event === "unlocking")?.at as number,
            }))
            .sort((x, y) => x.locked - y.locked);
          const [first, second] = spans as [(typeof spans)[0], (typeof spans)[0]];
          expect(second.locked).toBeGreaterThanOrEqual(first.unlocking);
          const state = await t.open().read();
          expect(state.serial).toBe(2);
          expect(Object.keys(state.resources).sort()).toEqual(["children.one", "children.two"]);
        },
      );
    });

    describe("fencing", () => {
      // The least stale time of a file lock (proper-lockfile's minimum).
      const LEASE_MS = 2000;

      it.skipIf(process.env.TGW_SKIP_CHILD_TESTS)(
        "a holder frozen longer than the lease loses the lock to the next taker; woken, it writes nothing and releases nothing of the new holder's",
        async () => {
          const t = await target("frozen");
          if (t.child === undefined || t.openWithLease === undefined) return;
          const holder = startLeaseChild(t.child.module, t.child.location, "frozen", LEASE_MS);
          const next = t.openWithLease(LEASE_MS);
          try {
            expect(await holder.line(0)).toMatchObject({ event: "locked" });
            holder.send("assert");
            expect(await holder.line(1)).toMatchObject({ event: "held" });
            holder.process.kill("SIGSTOP");
            // Waits for the lease to run out (its lock not refreshed, its session ended): the next
            // taker takes the lock and writes.
            const unlock = await next.lock({ timeoutMs: 60_000, holder: "the next run" });
            unlocks.push(unlock);
            expect((await next.write(await next.read())).serial).toBe(2);
            holder.process.kill("SIGCONT");
            // A write it let through before the freeze would be held back before its bytes go out;
            // neither an API write (the engine asks first) nor a state write goes through.
            holder.send("confirmed");
            expect(await holder.line(2)).toEqual({ event: "confirmed", value: false });
            holder.send("assert");
            const refused = await holder.line(3);
            expect(refused).toMatchObject({ event: "refused", code: "state_lock_lost" });
            expect(String(refused.message)).toMatch(/the state lock of .* was lost while this run held it/);
            holder.send("write");
            expect(await holder.line(4)).toMatchObject({ event: "refused", code: "state_lock_lost" });
            expect((await next.read()).serial).toBe(2);
            // Its unlock leaves the next holder's lock alone.
            holder.send("unlock");
            expect(await holder.line(5)).toMatchObject({ event: "unlocked" });
            if (canFence(next)) {
              await next.assertLockHeld();
              expect(next.lockStillConfirmed()).toBe(true);
            }
            await expect(t.open().lock({ timeoutMs: 0, holder: "a third" })).rejects.toBeInstanceOf(
              LockTimeoutError,
            );
            expect((await next.write(await next.read())).serial).toBe(3);
          } finally {
            holder.process.kill("SIGKILL");
          }
        },
        90_000,
      );
    });
  });
}
