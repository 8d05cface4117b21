/**
 * `--replace ADDRESS`: an unchanged object is replaced (create first, then delete), an API key gets a
 * new token in its token file, and the next plan is empty; unknown addresses and modules are refused.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const keys = [res("api_keys.ci", { description: "CI" }), res("api_keys.ops", { description: "ops" })];
const token = () => readFile(join(bench.dir, ".tgw", "secrets", "ci.token"), "utf8");

describe("--replace", () => {
  it("rotates an unchanged API key: new key first, then the old one deleted; new token; plan again: no changes", async () => {
    await bench.apply(keys);
    const oldId = (await bench.store.read()).resources["api_keys.ci"]?.id;
    const oldToken = await token();
    bench.reset();
    const { plan } = await bench.apply(keys, { replace: ["api_keys.ci"] });
    expect(plan.changes.find((c) => c.address === "api_keys.ci")).toMatchObject({
      action: "replace",
      reason: "replacement requested with --replace",
      replaceOrder: "create-first",
    });
    expect(plan.changes.find((c) => c.address === "api_keys.ops")?.action).toBe("no-op");
    expect(bench.calls()).toEqual(["POST /api_keys", "DELETE /api_keys/:id"]);
    const newId = (await bench.store.read()).resources["api_keys.ci"]?.id;
    expect(newId).not.toBe(oldId);
    expect(await token()).not.toBe(oldToken);
    const again = await bench.plan(keys);
    expect(again.plan.changes.every((c) => c.action === "no-op")).toBe(true);
  });

  it("refuses an address the configuration does not have, with a suggestion, and a module", async () => {
    await expect(bench.plan(keys, { replace: ["api_keys.cj"] })).rejects.toThrow(
      new UsageError(
        "--replace api_keys.cj: no such address in the configuration (did you mean api_keys.ci?)",
      ),
    );
    const module = res("edges.https.edghts_example01.routes.edghtsrt_example01.compression", {
      enabled: true,
    });
    await expect(bench.plan([...keys, module], { replace: [module.address] })).rejects.toThrow(
      /a module cannot be replaced/,
    );
  });
});
