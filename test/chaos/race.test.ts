/**
 * Two workspaces of one stack (two checkouts, each with its own state file) apply the same 200
 * resources at once: both plans were made before either applied, so both create everything and live
 * state ends with 400 objects for 200 addresses. No rule can tell which workspace should own the
 * stack, so none guesses: the next plan of either workspace is refused, naming the other's lineage
 * and the remedies, with no call made. The remedy works and nothing is wedged: the workspace that is
 * not to own the stack destroys its objects with --takeover (exactly its 200), after which the other
 * plans no changes without --takeover, and its destroy leaves nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { applyPlan, hasChanges, reconcile, StateJournal, UnsafePlanError } from "../../src/engine/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { desired, res, STACK } from "../engine/builders.js";
import { type Bench, startBench } from "../engine/harness.js";
import { liveAddresses } from "../helpers/live.js";

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
  const per = await liveAddresses(bench.api, STACK);
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
  expect(raced).toEqual({ objects: 2 * COUNT, addresses: COUNT });
  const [first, second] = workspaces as [(typeof workspaces)[number], (typeof workspaces)[number]];
  const lineageOf = async (w: (typeof workspaces)[number]) => (await w.store.read()).lineage;

  bench.reset();
  for (const [w, other] of [
    [second, first],
    [first, second],
  ] as const) {
    const refused = await run(w, "apply").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnsafePlanError);
    expect((refused as Error).message).toContain(`${COUNT} of lineage ${await lineageOf(other)}`);
  }
  expect(bench.calls()).toEqual([]);

  // The first workspace is not to own the stack: it destroys what it records, taking the claims.
  const gone = await reconcile({
    desired: desired([], "marker", first.dir),
    api: bench.api,
    store: first.store,
    options: { mode: "apply", parallelism: 8, destroy: true, allowEmpty: true, takeover: true },
  });
  const calls = bench.calls();
  const after = await markedPerAddress();
  console.log(
    `two-workspace race: ${COUNT} addresses, ${raced.objects} objects after the race; the destroy of one workspace deleted ${gone.plan.changes.length} in ${calls.length} calls; ${after.objects} objects left`,
  );
  expect(calls.filter((c) => c.startsWith("DELETE"))).toHaveLength(COUNT);
  expect(calls.filter((c) => !c.startsWith("DELETE"))).toEqual([]);
  expect(after).toEqual({ objects: COUNT, addresses: COUNT });
  // The other workspace's claims are all there is: no --takeover needed, nothing to change.
  expect(hasChanges((await run(second, "apply")).plan)).toBe(false);

  await run(second, "apply", true);
  expect(await markedPerAddress()).toEqual({ objects: 0, addresses: 0 });
});
