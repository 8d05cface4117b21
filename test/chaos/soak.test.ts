/**
 * Fault soak: 200 resources applied through a reference server that answers 25 % of requests with an
 * injected fault (500, 503, 429, or a dropped connection). One `apply` must converge: every resource
 * created once (0 duplicates, 0 missing), the state complete, and a plan right after shows no changes.
 * The figures are printed so runs can be compared.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { type EngineEvent, hasChanges, reconcile } from "../../src/engine/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { desired, res, STACK } from "../engine/builders.js";
import { type Bench, startBench } from "../engine/harness.js";
import { liveAddresses } from "../helpers/live.js";

const FAULTS = "500=0.09,503=0.06,429=0.06,drop=0.04,seed=25,retry_after=0";
const COUNT = 200;

let bench: Bench;
let api: ApiClient;
beforeAll(async () => {
  bench = await startBench({ faults: FAULTS });
  // Fast waits so the soak stays short; 6 retries per call (the default is 4) so that a refresh of a
  // dozen lists fails at 25 % faults about once in 1,500 runs instead of once in 100: the soak is
  // about the creates, and a failed refresh would count as a second run.
  api = new ApiClient({
    baseUrl: bench.server.url,
    apiKey: bench.server.token,
    retry: { retries: 6, baseDelayMs: 2, maxDelayMs: 20 },
  });
});
afterAll(async () => {
  await api.close();
  await bench.close();
});

const wanted = Array.from({ length: COUNT }, (_, i) =>
  res(`tunnel_group_backends.b${String(i).padStart(3, "0")}`, { description: `backend ${i}` }),
);

it(`applies ${COUNT} resources at 25 % injected faults in one run, with no duplicate`, async () => {
  const events: EngineEvent[] = [];
  const run = (mode: "plan" | "apply") =>
    reconcile({
      desired: desired(wanted, "marker", bench.dir),
      api,
      store: bench.store,
      options: { mode, parallelism: 4, createRetry: { retries: 6, baseDelayMs: 2, maxDelayMs: 20 } },
      onEvent: (e) => events.push(e),
    });
  let runs = 0;
  let lastError: unknown;
  while (runs < 5) {
    runs++;
    try {
      await run("apply");
      lastError = undefined;
      break;
    } catch (err) {
      lastError = err;
    }
  }
  const requests = bench.server.requests.length;
  const injected = bench.server.requests.filter((r) => [0, 429, 500, 503].includes(r.status)).length;
  const plan = await run("plan");

  // Count objects per marker address, reading without the faults' help: retry until a clean list.
  const perAddress = await liveAddresses(api, STACK, { attempts: 20 });
  const duplicates = [...perAddress.values()].reduce((n, c) => n + c - 1, 0);
  const retried = events.filter((e) => e.type === "create_retrying").length;
  const recovered = events.filter((e) => e.type === "create_recovered").length;
  console.log(
    `fault soak: ${COUNT} resources, faults ${FAULTS}: ${requests} requests, ${injected} faults injected (${((100 * injected) / requests).toFixed(1)} %), ${runs} run(s) needed, ${retried} creates sent again, ${recovered} recovered by marker, ${duplicates} duplicates, ${COUNT - perAddress.size} missing`,
  );

  expect(lastError).toBeUndefined();
  expect(runs).toBe(1);
  expect(injected / requests).toBeGreaterThan(0.15);
  expect(duplicates).toBe(0);
  expect(perAddress.size).toBe(COUNT);
  expect(hasChanges(plan.plan)).toBe(false);
  const state = await new FileStateStore(bench.store.location, { stack: STACK, warn: () => {} }).read();
  expect(Object.keys(state.resources)).toHaveLength(COUNT);
});
