/**
 * The API a state belongs to (docs/state.md > Which API a state belongs to), through `reconcile`
 * against the reference server: recorded by apply, a run against another API refused unless allowed,
 * another key of the same API only a warning, states written before it was recorded accepted.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiMismatchError,
  type EngineEvent,
  type ReconcileOptions,
  reconcile,
} from "../../src/engine/index.js";
import { parseState, serializeState } from "../../src/state/format.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const HERE = { url: "https://api.example.com", key: "0123456789abcdef" };
const resources = [res("tunnel_group_backends.web", { description: "web" })];
const statePath = () => join(bench.dir, ".tgw", "state.json");
const recorded = async () => JSON.parse(await readFile(statePath(), "utf8")).api;

async function run(options: ReconcileOptions) {
  const events: EngineEvent[] = [];
  const result = await reconcile({
    desired: desired(resources, "marker", bench.dir),
    api: bench.api,
    store: bench.store,
    options,
    onEvent: (e) => events.push(e),
  });
  return { result, warnings: events.flatMap((e) => (e.type === "warning" ? [e.message] : [])) };
}

describe("the API of a state", () => {
  it("is recorded by the first apply", async () => {
    await run({ mode: "apply", apiIdentity: HERE });
    expect(await recorded()).toEqual(HERE);
  });

  it("refuses a run against another API, naming both; --allow-api-change plans with a warning", async () => {
    const embedded = { url: "embedded" };
    for (const mode of ["plan", "apply"] as const) {
      const err = await run({ mode, apiIdentity: embedded }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiMismatchError);
      expect((err as Error).message).toContain(
        "belongs to the API at https://api.example.com (key fingerprint 0123456789abcdef), but this run uses the embedded reference server (TGW_API_URL is not set)",
      );
    }
    expect(await recorded()).toEqual(HERE);
    const allowed = await run({ mode: "plan", apiIdentity: embedded, allowApiChange: true });
    expect(allowed.warnings[0]).toContain("belongs to the API at https://api.example.com");
  });

  it("only warns about another key of the same API, and records it on apply", async () => {
    const other = { ...HERE, key: "fedcba9876543210" };
    const { warnings } = await run({ mode: "apply", apiIdentity: other });
    expect(warnings[0]).toContain("was last written with another key of https://api.example.com");
    expect(await recorded()).toEqual(other);
  });

  it("is accepted when absent (a state written before tgw recorded it) and recorded by the next apply", async () => {
    const parsed = parseState(await readFile(statePath(), "utf8"));
    if (!("snapshot" in parsed)) throw new Error(parsed.problem);
    const { api: _api, ...old } = parsed.snapshot;
    await bench.loseState();
    await writeFile(statePath(), serializeState(old));
    const { result, warnings } = await run({ mode: "apply", apiIdentity: HERE });
    expect(warnings).toEqual([]);
    expect(result.applied).toBe(true);
    expect(await recorded()).toEqual(HERE);
  });
});
