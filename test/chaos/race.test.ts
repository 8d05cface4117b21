/**
 * Two workspaces of one stack (two checkouts, each with its own state file) apply the same 200
 * resources at once: both plans were made before either applied, so both create everything and live
 * state ends with 400 objects for 200 addresses. That must never wedge the stack: the next plan (of
 * either workspace) keeps one object per address and deletes the others as duplicate removals; after
 * its apply both workspaces plan no changes, and destroy works.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { applyPlan, hasChanges, reconcile, StateJournal } from "../../src/engine/index.js";
import { decodeMetadata } from "../../src/model/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { desired, res, STACK } from "../engine/builders.js";
import { type Bench, startBench } from "../engine/harness.js";

const COUNT = 200;
let bench: Bench;
let otherDir: string;
beforeAll(async () => {
  bench = await startBench();
  otherDir = await mkdtemp(join(tmpdir(), "tgw-race-"));
});
afterAll(async () => {
  await bench.close();
  await rm(otherDir, { recursive: true, force: true });
});

const wanted = Array.from({ length: COUNT }, (_, i) =>
  res(`tunnel_group_backends.r${String(i).padStart(3, "0")}`, { description: `backend ${i}` }),
);

const markedPerAddress = async () => {
  const live = await bench.api.listAll<{ id: string; metadata: string }>(
    "/backends/tunnel_group",
    "backends",
  );
  const per = new Map<string, number>();
  for (const b of live) {
    const m = decodeMetadata(b.metadata).marker;
    if (m?.stack === STACK) per.set(m.address, (per.get(m.address) ?? 0) + 1);
  }
  return { objects: [...per.values()].reduce((a, b) => a + b, 0), addresses: per.size };
};

it("two workspaces applying one stack at once never wedge it", async () => {
  const workspaces = [
    { dir: bench.dir, store: bench.store },
    {
      dir: otherDir,
      store: new FileStateStore(join(otherDir, ".tgw", "state.json"), { stack: STACK, warn: () => {} }),
    },
  ];
  const run = (w: (typeof workspaces)[number], mode: "plan" | "apply", destroy = false) =>
    reconcile({
      desired: desired(destroy ? [] : wanted, "marker", w.dir),
      api: bench.api,
      store: w.store,
      options: { mode, parallelism: 8, destroy, allowEmpty: true },
    });

  // Both plan before either applies, then both apply at once.
  const plans = await Promise.all(workspaces.map((w) => run(w, "plan")));
  await Promise.all(
    workspaces.map(async (w, i) => {
      const unlock = await w.store.lock({ timeoutMs: 0, holder: "race" });
      try {
        const journal = new StateJournal(w.store, await w.store.read());
        const { plan } = plans[i] as Awaited<ReturnType<typeof run>>;
        await applyPlan(plan, desired(wanted, "marker", w.dir), bench.api, journal, { parallelism: 8 });
      } finally {
        await unlock();
      }
    }),
  );
  const raced = await markedPerAddress();

  bench.reset();
  const second = workspaces[1] as (typeof workspaces)[number];
  const fix = await run(second, "apply");
  const removals = fix.plan.changes.filter((c) => c.address.includes("#duplicate:"));
  const calls = bench.calls();
  const after = await markedPerAddress();
  const again = await Promise.all(workspaces.map((w) => run(w, "apply")));
  console.log(
    `two-workspace race: ${COUNT} addresses, ${raced.objects} objects after the race; the next apply removed ${removals.length} duplicates in ${calls.length} calls; ${after.objects} objects left`,
  );

  expect(raced).toEqual({ objects: 2 * COUNT, addresses: COUNT });
  expect(removals).toHaveLength(COUNT);
  expect(
    removals.every(
      (c) => c.action === "delete" && /is kept \(the object this state records\)$/.test(c.reason),
    ),
  ).toBe(true);
  expect(calls.filter((c) => c.startsWith("DELETE"))).toHaveLength(COUNT);
  expect(calls.filter((c) => !c.startsWith("DELETE"))).toEqual([]);
  expect(after).toEqual({ objects: COUNT, addresses: COUNT });
  // The first workspace adopts the kept objects through their markers: no call, no change.
  expect(again.map((r) => hasChanges(r.plan))).toEqual([false, false]);

  await run(workspaces[0] as (typeof workspaces)[number], "apply", true);
  expect(await markedPerAddress()).toEqual({ objects: 0, addresses: 0 });
});
