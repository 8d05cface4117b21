/**
 * Fault injection: the reference server answers a share of requests 500, 503 or 429, or drops them.
 * Each failed apply names what failed (with the status), its state records exactly what succeeded,
 * and applying again converges to the configuration: no object missing, none duplicated. Creates are
 * not sent again within a run here (`createRetry.retries: 0`), so that runs do fail; one run converging
 * at 25 % faults is test/chaos/soak.test.ts.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApplyFailedError, hasChanges } from "../../src/engine/index.js";
import { liveIds } from "../helpers/live.js";
import { res, STACK } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench({ faults: "500=0.12,503=0.08,429=0.08,drop=0.04,seed=11,retry_after=0" });
});
afterAll(() => bench.close());

const wanted = Array.from({ length: 24 }, (_, i) =>
  res(`tunnel_group_backends.b${String(i).padStart(2, "0")}`, { description: `backend ${i}` }),
);

it("reports what failed, records what succeeded, and converges on the next applies", async () => {
  let applyFailures = 0;
  let converged = false;
  for (let attempt = 0; attempt < 25 && !converged; attempt++) {
    try {
      await bench.apply(wanted, {
        parallelism: 4,
        createRetry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      });
      converged = true;
    } catch (err) {
      if (!(err instanceof ApplyFailedError)) continue; // the refresh itself failed: nothing was applied
      applyFailures++;
      const failed = err.outcomes.filter((o) => o.status === "failed");
      expect(failed.length).toBeGreaterThan(0);
      for (const o of failed) {
        expect(err.message).toContain(o.change.address);
        expect(err.message).toMatch(/(POST|GET) \/backends\/tunnel_group.*: (500|503|429)|failed after/);
      }
      // Every change reported done is in the state with its id.
      const state = await bench.store.read();
      for (const o of err.outcomes.filter((x) => x.status === "done")) {
        expect(state.resources[o.change.address]?.id).toBe(o.id);
      }
    }
  }
  expect(converged).toBe(true);
  expect(applyFailures).toBeGreaterThan(0);
  // Planning again (once a refresh gets through the faults) finds nothing to do.
  let again: boolean | undefined;
  for (let i = 0; i < 20 && again === undefined; i++) {
    again = await bench.plan(wanted).then(
      (r) => hasChanges(r.plan),
      () => undefined,
    );
  }
  expect(again).toBe(false);

  // Read back without faults interfering (list until a clean read); a duplicate's address shows twice.
  const live = await liveIds(bench.api, STACK, { attempts: 20 });
  const addresses = [...live].flatMap(([address, ids]) => ids.map(() => address));
  expect(addresses.sort()).toEqual(wanted.map((r) => r.address).sort());
  const state = await bench.store.read();
  expect(Object.keys(state.resources).sort()).toEqual(wanted.map((r) => r.address).sort());
});
