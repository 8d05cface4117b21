/**
 * `lazyFingerprints` (src/engine/plan.ts): `tgw plan` computes the basis fingerprints only when the
 * plan is shown as JSON or saved. Read, they must be exactly the eager ones, in JSON as well.
 */
import { describe, expect, it } from "vitest";
import { desiredFingerprint, liveFingerprint } from "../../src/engine/index.js";
import { makePlan } from "../../src/engine/plan.js";
import { desired, live, marked, res, state } from "./builders.js";

describe("lazy basis fingerprints", () => {
  const d = desired([
    res("api_keys.ci", { description: "ci", metadata: { team: "x" } }),
    res("tunnel_group_backends.web", { labels: { app: "web" } }),
  ]);
  const l = live([
    { kind: "api_key", id: "ak_1", description: "ci", metadata: marked("api_keys.ci", { team: "x" }) },
    { kind: "tunnel_group_backend", id: "bkdtg_9", description: "", metadata: "", labels: {} },
  ]);

  it("gives the eager values when read, and the same JSON", () => {
    const eager = makePlan({ desired: d, live: l, state: state() });
    const lazy = makePlan({ desired: d, live: l, state: state(), lazyFingerprints: true });
    expect(lazy.basis.liveFingerprint).toBe(liveFingerprint(l));
    expect(lazy.basis.desiredFingerprint).toBe(desiredFingerprint(d));
    expect(lazy.basis).toEqual(eager.basis);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
    expect({ ...lazy.basis }).toEqual(eager.basis);
  });

  it("keeps the value of the first read", () => {
    const local = live([{ kind: "api_key", id: "ak_1", description: "ci", metadata: marked("api_keys.ci") }]);
    const lazy = makePlan({ desired: d, live: local, state: state(), lazyFingerprints: true });
    const first = lazy.basis.liveFingerprint;
    local.objects.delete("ak_1");
    expect(lazy.basis.liveFingerprint).toBe(first);
    expect(liveFingerprint(local)).not.toBe(first);
  });
});
