/**
 * `moved:` (rename without recreating): the renamed object is kept, its ownership marker rewritten with
 * one PATCH, its token file moved; the old address is forgotten; it works when the state was lost too.
 * The config layer's rules for `moved:` are at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadDesiredState } from "../../src/config/index.js";
import { reconcile } from "../../src/engine/index.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const run = (
  address: string,
  moved: { from: string; to: string }[],
  mode: "plan" | "apply",
  options: { takeover?: boolean } = {},
) =>
  reconcile({
    desired: { ...desired([res(address, { description: "CI" })], "marker", bench.dir), moved },
    api: bench.api,
    store: bench.store,
    options: { mode, ...options },
  });
const secret = (name: string) => readFile(join(bench.dir, ".tgw", "secrets", `${name}.token`), "utf8");

describe("moved", () => {
  it("renames an API key with one PATCH of its marker; the token file follows; plan again: no changes", async () => {
    await run("api_keys.ci", [], "apply");
    const id = (await bench.store.read()).resources["api_keys.ci"]?.id;
    const token = await secret("ci");
    const move = [{ from: "api_keys.ci", to: "api_keys.deployer" }];
    const { plan } = await run("api_keys.deployer", move, "plan");
    expect(plan.changes).toEqual([
      expect.objectContaining({
        address: "api_keys.deployer",
        action: "update",
        id,
        movedFrom: "api_keys.ci",
      }),
    ]);
    expect(plan.changes[0]?.reason).toBe("moved from api_keys.ci (its ownership marker is rewritten)");
    expect(plan.forget).toEqual(["api_keys.ci"]);
    bench.reset();
    await run("api_keys.deployer", move, "apply");
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
    const state = await bench.store.read();
    expect(Object.keys(state.resources)).toEqual(["api_keys.deployer"]);
    expect(state.resources["api_keys.deployer"]?.id).toBe(id);
    expect(await secret("deployer")).toBe(token);
    const again = await run("api_keys.deployer", move, "plan");
    expect(again.plan.changes.map((c) => c.action)).toEqual(["no-op"]);
    expect(again.plan.forget).toEqual([]);
  });

  it("finds the object by its old marker when the state was lost (--takeover)", async () => {
    await bench.loseState();
    const move = [{ from: "api_keys.deployer", to: "api_keys.ops" }];
    bench.reset();
    const { plan } = await run("api_keys.ops", move, "apply", { takeover: true });
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([["api_keys.ops", "update"]]);
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
    expect((await run("api_keys.ops", move, "plan")).plan.changes.map((c) => c.action)).toEqual(["no-op"]);
    await bench.apply([], { allowEmpty: true });
  });

  it("is checked by the config layer: same collection, to configured, from not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tgw-moved-"));
    try {
      writeFileSync(
        join(dir, "tgw.yaml"),
        [
          "api_keys:",
          "  deployer: {}",
          "  ops: {}",
          "moved:",
          "  - {from: api_keys.ci, to: api_keys.deployer}",
          "  - {from: api_keys.x, to: tunnel_group_backends.x}",
          "  - {from: api_keys.ops, to: api_keys.deployer}",
          "  - {from: api_keys.y, to: api_keys.nope}",
          "",
        ].join("\n"),
      );
      const err = await loadDesiredState([dir]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
        "6: api_keys.x -> tunnel_group_backends.x: an object cannot move to another collection",
        "7: api_keys.ops -> api_keys.deployer: api_keys.ops is still in the configuration: remove it (or the move)",
        "8: api_keys.y -> api_keys.nope: api_keys.nope is not in the configuration (nor moved on to an address that is)",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("moved: conflicts", () => {
  it("refuses two entries moving recorded objects onto one address, naming both", async () => {
    const { applyMoves } = await import("../../src/engine/moves.js");
    const { MoveConflictError } = await import("../../src/engine/errors.js");
    const rec = (address: string, id: string) => ({
      address,
      kind: "api_key",
      id,
      fingerprint: "0".repeat(64),
      appliedAt: new Date(0).toISOString(),
    });
    const state = {
      version: 1 as const,
      lineage: "l",
      serial: 1,
      stack: "s",
      resources: { "api_keys.a": rec("api_keys.a", "ak_1"), "api_keys.b": rec("api_keys.b", "ak_2") },
    };
    const moves = [
      { from: "api_keys.a", to: "api_keys.c" },
      { from: "api_keys.b", to: "api_keys.c" },
    ];
    const err = (() => {
      try {
        applyMoves(state, moves);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MoveConflictError);
    expect((err as Error).message).toContain(
      "moved: api_keys.a -> api_keys.c and api_keys.b -> api_keys.c both move an object of the state onto api_keys.c",
    );
  });
});
