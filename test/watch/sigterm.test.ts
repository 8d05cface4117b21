/**
 * SIGTERM (and SIGHUP, alike: issue 43 §7) while a reconcile is applying (the API slowed down by a
 * proxy so calls are in flight): the calls in flight finish and are recorded, nothing new starts, the
 * state lock is released and the process exits 0. The state then matches live state exactly, and the
 * next start completes the rest without a duplicate.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FileStateStore } from "../../src/state/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, scratchConfig, startWatch } from "./child.js";
import { startProxy, type TcpProxy } from "./proxy.js";

const N = 12;
const names = Array.from({ length: N }, (_, i) => `k${String(i + 1).padStart(2, "0")}`);
const scratches: ReturnType<typeof scratchConfig>[] = [];
/** A configuration of N keys, stack `stack`, in a scratch directory of its own. */
function scratchStack(stack: string): ReturnType<typeof scratchConfig> {
  const scratch = scratchConfig(`tgw-${stack}-`, {
    "config/main.yaml": `stack: ${stack}\napi_keys:\n${names.map((n) => `  ${n}:\n    description: sig-${n}\n`).join("")}`,
  });
  scratches.push(scratch);
  return scratch;
}

let server: TestServer;
let proxy: TcpProxy;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startProxy(server.url);
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
  for (const scratch of scratches) scratch.cleanup();
});

/** Live API keys of this stack, by id, with the address their ownership marker names. */
async function ownedKeys(stack: string): Promise<{ id: string; address: string }[]> {
  const { body } = await callApi(server, "GET", "/api_keys?limit=100");
  return (body as { keys: { id: string; metadata: string }[] }).keys.flatMap((k) => {
    const marker = (JSON.parse(k.metadata || "{}") as { tgw?: { stack: string; address: string } }).tgw;
    return marker?.stack === stack ? [{ id: k.id, address: marker.address }] : [];
  });
}

it.each(["SIGTERM", "SIGHUP"] as const)(
  "on %s mid-apply: in-flight calls finish, lock released, exit 0, state consistent",
  async (signal) => {
    const STACK = `watch-${signal.toLowerCase()}`;
    const scratch = scratchStack(STACK);
    proxy.delayMs = 300;
    const api = { url: proxy.url, token: server.token };
    const w = startWatch({
      dir: scratch.dir,
      api,
      args: ["--log-format", "json", "--debug", "--interval", "60s"],
    });
    await w.waitForEvent((e) => e.event === "change_applied", { timeoutMs: 20_000 });
    const t0 = performance.now();
    const code = await w.stop(signal);
    const stopMs = performance.now() - t0;
    console.log(`tgw watch: ${signal} mid-apply -> exit ${code} after ${Math.round(stopMs)} ms`);
    expect(code).toBe(0);

    const events = w.events().map((e) => e.event);
    // After "stopping", only the calls already in flight report; then the run ends and the process stops.
    const stopping = events.indexOf("stopping");
    expect(stopping).toBeGreaterThan(0);
    expect(events.slice(stopping + 1, -2).every((e) => e === "change_applied")).toBe(true);
    expect(events.slice(-2)).toEqual(["reconcile_interrupted", "stopped"]);
    const interrupted = w.events().find((e) => e.event === "reconcile_interrupted");
    const applied = interrupted?.applied as { address: string; action: string }[];
    expect(applied.length).toBeGreaterThanOrEqual(1);
    expect(applied.length).toBeLessThan(N);
    expect(w.stderr()).not.toMatch(/Error|at .*\.ts:\d+/);

    // The lock is free: another writer gets it at once.
    const store = new FileStateStore(join(scratch.dir, ".tgw", "state.json"), {
      stack: STACK,
      warn: () => {},
    });
    const unlock = await store.lock({ timeoutMs: 0, holder: "test" });
    await unlock();

    // State and live state agree: every created key is recorded, every record exists.
    const state = JSON.parse(readFileSync(join(scratch.dir, ".tgw", "state.json"), "utf8")) as {
      resources: Record<string, { id: string }>;
    };
    const recorded = Object.entries(state.resources)
      .map(([address, r]) => ({ id: r.id, address }))
      .sort((a, b) => a.address.localeCompare(b.address));
    const live = (await ownedKeys(STACK)).sort((a, b) => a.address.localeCompare(b.address));
    expect(recorded).toEqual(live);
    expect(live.map((k) => k.address).sort()).toEqual(applied.map((c) => c.address).sort());

    // The next start completes the rest: exactly N keys, no duplicate address.
    proxy.delayMs = 0;
    const again = startWatch({ dir: scratch.dir, api, args: ["--log-format", "json", "--interval", "60s"] });
    const { event } = await again.waitForEvent((e) => e.event === "reconcile_succeeded", {
      timeoutMs: 20_000,
    });
    expect((event.changes as unknown[]).length).toBe(N - applied.length);
    expect(await again.stop("SIGINT")).toBe(0);
    const all = await ownedKeys(STACK);
    expect(all).toHaveLength(N);
    expect(new Set(all.map((k) => k.address)).size).toBe(N);
  },
);
