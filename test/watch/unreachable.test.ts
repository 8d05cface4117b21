/**
 * The API refuses connections for a while: each reconcile attempt of the watch loop costs about one
 * request (the client sends one call to find out whether the API is back and fails the others unsent;
 * nothing is retried inside the reconcile), so the loop's backoff alone paces the attempts. Once the
 * API is back the pending change is applied. Runs the loop in-process to count every request.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { engineDeps, type WatchEvent, WatchLoop } from "../../src/watch/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { scratchConfig } from "./child.js";
import { startProxy, type TcpProxy } from "./proxy.js";

const config = (d: string) => `stack: watch-refused\napi_keys:\n  ci:\n    description: ${d}\n`;
const scratch = scratchConfig("tgw-watch-refused-", { "config/main.yaml": config("before") });
let server: TestServer;
let proxy: TcpProxy;
let api: ApiClient;
let loop: WatchLoop;
let requests = 0;
const events: WatchEvent[] = [];

const waitFor = async (match: (e: WatchEvent) => boolean, from: number, timeoutMs = 20_000) => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = events.slice(from).find(match);
    if (found) return found;
    if (performance.now() > deadline)
      throw new Error(`no matching watch event; events: ${events.map((e) => e.type).join(", ")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  server = await startTestServer();
  proxy = await startProxy(server.url);
  // As `tgw watch` builds its client: 2 retries per call, none when the API is unreachable.
  api = new ApiClient({
    baseUrl: proxy.url,
    apiKey: server.token,
    retry: { retries: 2, baseDelayMs: 20, maxDelayMs: 50 },
    probeOutages: true,
    onResponse: () => requests++,
  });
  const emit = (e: WatchEvent) => events.push(e);
  loop = new WatchLoop({
    roots: [scratch.dir],
    deps: engineDeps({
      paths: [scratch.dir],
      statePath: join(scratch.root, "state.json"),
      api,
      safety: {},
      lockTimeoutMs: 1_000,
      emit,
    }),
    emit,
    intervalMs: 3_600_000,
    debounceMs: 50,
    backoff: { initialMs: 100, maxMs: 200 },
    poll: true,
  });
  await loop.start();
  await waitFor((e) => e.type === "reconcile_succeeded", 0);
});

afterAll(async () => {
  await loop?.stop();
  await api?.close();
  await proxy?.close();
  await server?.close();
  scratch.cleanup();
});

it("costs about one request per reconcile attempt while connections are refused", async () => {
  await proxy.refuse();
  const from = events.length;
  const before = requests;
  scratch.write("config/main.yaml", config("after"));
  await waitFor((e) => e.type === "reconcile_failed", from);
  // Several attempts, paced by the loop's backoff only.
  let failed: WatchEvent[] = [];
  while (failed.length < 5) {
    await new Promise((r) => setTimeout(r, 50));
    failed = events.slice(from).filter((e) => e.type === "reconcile_failed");
  }
  const sent = requests - before;
  console.log(`tgw watch, API refusing connections: ${failed.length} reconcile attempts, ${sent} requests`);
  const first = failed[0];
  expect(first?.type === "reconcile_failed" && first.code).toBe("network");
  expect(first?.type === "reconcile_failed" && first.message).toMatch(/connection refused \(ECONNREFUSED\)/);
  // The first attempt may have a few lists in flight at once (refresh concurrency 4); then one each.
  expect(sent).toBeLessThanOrEqual(failed.length + 4);

  const upFrom = events.length;
  await proxy.listen();
  const done = await waitFor((e) => e.type === "reconcile_succeeded", upFrom);
  expect(done.type === "reconcile_succeeded" && done.changes).toEqual([
    { address: "api_keys.ci", action: "update" },
  ]);
});
