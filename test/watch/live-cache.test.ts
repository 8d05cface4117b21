/**
 * The kept live state of `tgw watch` (src/watch/live-cache.ts) against the reference server: a partial
 * read GETs again only the objects of changed addresses, and its plan may call only objects it read
 * again (anything else sends the reconcile back to a full refresh); a state written by someone else
 * makes the next read full.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/engine/index.js";
import { reconcile } from "../../src/engine/index.js";
import { LiveCache } from "../../src/watch/live-cache.js";
import { desired, res } from "../engine/builders.js";
import { type Bench, startBench } from "../engine/harness.js";

let bench: Bench;
let cache: LiveCache;
beforeAll(async () => {
  bench = await startBench();
  cache = new LiveCache(bench.api);
});
afterAll(() => bench?.close());

const config = (a: string) => [
  res("api_keys.a", { description: a }),
  res("api_keys.b", { description: "b" }),
];

/** Reconciles `resources` through the cache, partially when `partial`, as the watcher does. */
async function run(resources: ReturnType<typeof config>, partial: boolean) {
  const d = desired(resources, "marker", bench.dir);
  const result = await reconcile({
    desired: d,
    api: bench.api,
    store: bench.store,
    options: {
      readLive: partial ? cache.partial(d) : cache.full(),
      ...(partial ? { approve: async (plan: Plan) => cache.checkPlan(plan) } : {}),
    },
  });
  cache.succeeded(d, result.plan, result.state);
  return result;
}

const gets = () => bench.server.requests.filter((r) => r.method === "GET").map((r) => r.path);
const change = (action: string, id?: string) =>
  ({ changes: [{ address: "api_keys.b", kind: "api_key", action, ...(id ? { id } : {}) }] }) as Plan;

describe("LiveCache", () => {
  it("reads again only the objects of changed addresses, and trusts the kept copy for no call", async () => {
    await run(config("a1"), false);
    await run(config("a1"), true); // reads again what the first apply created
    const state = await bench.store.read();
    const a = state.resources["api_keys.a"]?.id as string;
    const b = state.resources["api_keys.b"]?.id as string;

    bench.reset();
    const result = await run(config("a2"), true);
    expect(cache.lastRead?.kind).toBe("partial");
    expect(gets()).toEqual([`/api_keys/${a}`]);
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
    expect(result.plan.changes.find((c) => c.address === "api_keys.a")?.action).toBe("update");

    // The plan of that read may call `a` and create, but nothing it did not read again.
    expect(cache.checkPlan(change("update", a))).toBe(true);
    expect(cache.checkPlan(change("create"))).toBe(true);
    expect(cache.checkPlan(change("update", b))).toBe(false);
    expect(cache.checkPlan(change("delete", b))).toBe(false);
    expect(cache.checkPlan(change("replace", b))).toBe(false);
  });

  it("reads everything when the state was written by someone else since the kept read", async () => {
    await bench.apply(config("a3")); // a `tgw apply` by hand: the serial moves
    bench.reset();
    await run(config("a3"), true);
    expect(cache.lastRead?.kind).toBe("full");
    expect(gets().some((p) => p.startsWith("/api_keys?") || p === "/api_keys")).toBe(true);
  });
});

describe("LiveCache, with kinds read by GETs (an account holding hundreds of keys)", () => {
  it("reads the stack's keys one by one in a full read, and a second edit GETs only the edited one", async () => {
    // The account's other keys: 300, so 2 keys cost fewer GETs than the kind's 3 pages.
    for (let i = 0; i < 300; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => bench.api.post("/api_keys", { description: `other ${i + j}` })),
      );
    await run(config("g1"), false); // lists the keys: the state learns their count
    await run(config("g1"), false);
    const state = await bench.store.read();
    const a = state.resources["api_keys.a"]?.id as string;
    const b = state.resources["api_keys.b"]?.id as string;
    bench.reset();
    await run(config("g1"), false);
    expect(cache.lastRead?.kind).toBe("full");
    expect(gets().sort()).toEqual([`/api_keys/${a}`, `/api_keys/${b}`].sort());

    bench.reset();
    await run(config("g2"), true);
    expect(cache.lastRead?.kind).toBe("partial");
    expect(gets()).toEqual([`/api_keys/${a}`]);
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
    bench.reset();
    await run(config("g3"), true); // the watcher's next revision
    expect(gets()).toEqual([`/api_keys/${a}`]);
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
  }, 60_000);
});
