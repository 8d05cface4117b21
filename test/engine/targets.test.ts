/**
 * `--target` / `--exclude`: a plan narrowed to addresses (or collections) and what they need, marked
 * partial; unknown addresses refused with a suggestion; apply changes only the selected objects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const config = [
  res("tunnel_group_backends.web", { description: "web" }),
  res("edges.tls.edgtls_example01.backend", { backend_id: { $ref: "tunnel_group_backends.web" } }),
  res("api_keys.ci", { description: "CI" }),
  res("api_keys.ops", { description: "ops" }),
];
const addresses = (changes: { address: string }[]) => changes.map((c) => c.address);

describe("targeting", () => {
  it("--target keeps the address and what it depends on, and marks the plan partial", async () => {
    const { plan } = await bench.plan(config, { target: ["edges.tls.edgtls_example01.backend"] });
    expect(addresses(plan.changes)).toEqual([
      "edges.tls.edgtls_example01.backend",
      "tunnel_group_backends.web",
    ]);
    expect(plan.partial).toEqual({ target: ["edges.tls.edgtls_example01.backend"], exclude: [] });
  });

  it("a collection targets every address in it; --exclude drops an address and what depends on it", async () => {
    expect(addresses((await bench.plan(config, { target: ["api_keys"] })).plan.changes)).toEqual([
      "api_keys.ci",
      "api_keys.ops",
    ]);
    expect(
      addresses((await bench.plan(config, { exclude: ["tunnel_group_backends.web"] })).plan.changes),
    ).toEqual(["api_keys.ci", "api_keys.ops"]);
  });

  it("refuses an address that matches nothing, with the closest one", async () => {
    await expect(bench.plan(config, { target: ["api_keys.cl"] })).rejects.toThrow(
      new UsageError("--target api_keys.cl: matches no address of this stack (did you mean api_keys.ci?)"),
    );
  });

  it("apply changes only the selected objects; a plan without targeting then does the rest", async () => {
    bench.reset();
    await bench.apply(config, { target: ["api_keys.ci"] });
    expect(bench.calls()).toEqual(["POST /api_keys"]);
    const rest = await bench.plan(config);
    expect(rest.plan.partial).toBeUndefined();
    expect(rest.plan.changes.filter((c) => c.action !== "no-op").map((c) => c.address)).toEqual([
      "api_keys.ops",
      "edges.tls.edgtls_example01.backend",
      "tunnel_group_backends.web",
    ]);
    await bench.apply([], { allowEmpty: true });
  });
});
