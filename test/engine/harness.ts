/**
 * A reference server, an API client and a file state store for engine tests that run the real thing
 * over HTTP: `apply(resources)` reconciles, `plan(resources)` only plans, `calls()` lists the mutating
 * requests the server received as `METHOD /path/:id` (ids of collections replaced by `:id`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "../../src/client/index.js";
import { type ReconcileOptions, type ReconcileResult, reconcile } from "../../src/engine/index.js";
import type { DesiredResource } from "../../src/model/desired.js";
import { collections } from "../../src/model/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/server.js";
import { desired, STACK } from "./builders.js";

/** A running test bench. */
export interface Bench {
  server: TestServer;
  api: ApiClient;
  dir: string;
  store: FileStateStore;
  apply(resources: DesiredResource[], options?: ReconcileOptions): Promise<ReconcileResult>;
  plan(resources: DesiredResource[], options?: ReconcileOptions): Promise<ReconcileResult>;
  /** Mutating requests since the last `reset()`, as `METHOD /path` with collection ids as `:id`. */
  calls(): string[];
  reset(): void;
  /** A fresh state file (as if it was lost). */
  loseState(): Promise<void>;
  close(): Promise<void>;
}

const templates = [...collections().values()].map((k) => k.path);

/** `/api_keys/ak_123` -> `/api_keys/:id`; module paths unchanged. */
export function template(path: string): string {
  for (const base of templates)
    if (path.startsWith(`${base}/`) && !path.slice(base.length + 1).includes("/")) return `${base}/:id`;
  return path;
}

/** Starts a bench (server with examples/fixtures.yaml, client, state in a temp directory). */
export async function startBench(opts: TestServerOptions = {}): Promise<Bench> {
  const server = await startTestServer(opts);
  const api = new ApiClient({
    baseUrl: server.url,
    apiKey: server.token,
    retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 },
  });
  const dir = await mkdtemp(join(tmpdir(), "tgw-engine-"));
  const open = () => new FileStateStore(join(dir, ".tgw", "state.json"), { stack: STACK, warn: () => {} });
  const bench: Bench = {
    server,
    api,
    dir,
    store: open(),
    apply: (resources, options = {}) =>
      reconcile({
        desired: desired(resources, "marker", dir),
        api,
        store: bench.store,
        options: { ...options, mode: "apply" },
      }),
    plan: (resources, options = {}) =>
      reconcile({
        desired: desired(resources, "marker", dir),
        api,
        store: bench.store,
        options: { ...options, mode: "plan" },
      }),
    calls: () => server.mutations().map((r) => `${r.method} ${template(r.path)}`),
    reset: () => server.resetRequests(),
    loseState: async () => {
      await rm(join(dir, ".tgw", "state.json"), { force: true });
      await rm(join(dir, ".tgw", "state.json.backup"), { force: true });
      bench.store = open();
    },
    close: async () => {
      await api.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return bench;
}
