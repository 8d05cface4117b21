/**
 * An apply asked for lazy basis fingerprints (`tgw apply` does) computes them only when read, after
 * the apply, and they are the values the plan's inputs give, as an eager plan's are.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desiredFingerprint, liveFingerprint, reconcile } from "../../src/engine/index.js";
import { desired, live, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

describe("apply with lazy basis fingerprints", () => {
  it("leaves them to the first read, which gives the fingerprints of what the plan was made from", async () => {
    const want = desired([res("tunnel_group_backends.lazy", { description: "lazy" })], "marker", bench.dir);
    const result = await reconcile({
      desired: want,
      api: bench.api,
      store: bench.store,
      options: { lazyFingerprints: true },
    });
    expect(result.applied).toBe(true);
    const basis = result.plan.basis;
    expect(typeof Object.getOwnPropertyDescriptor(basis, "desiredFingerprint")?.get).toBe("function");
    expect(basis.desiredFingerprint).toBe(desiredFingerprint(want));
    // Planned against an empty API: the live fingerprint of nothing.
    expect(basis.liveFingerprint).toBe(liveFingerprint(live([])));
    await bench.apply([], { allowEmpty: true });
  });
});
