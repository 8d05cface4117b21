/**
 * Apply against the reference server: bounded concurrency in dependency order, one event per change,
 * an interrupted run that starts nothing new, and a create whose answer is lost on the way back that is
 * found again by its marker instead of being sent twice.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { valuesFingerprint } from "../../src/engine/fingerprint.js";
import { ApplyFailedError, type EngineEvent, reconcile } from "../../src/engine/index.js";
import { desiredValues } from "../../src/engine/normalize.js";
import { resolveRefs } from "../../src/engine/refs.js";
import { getKind } from "../../src/model/index.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const backends = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    res(`tunnel_group_backends.b${String(i).padStart(2, "0")}`, { description: `${i}` }),
  );

describe("apply", () => {
  it("keeps at most --parallelism calls in flight and reports one change_applied per change", async () => {
    const events: EngineEvent[] = [];
    let inFlight = 0;
    let most = 0;
    await reconcile({
      desired: desired(backends(12), "marker", bench.dir),
      api: bench.api,
      store: bench.store,
      options: { parallelism: 3 },
      onEvent: (e) => {
        events.push(e);
        if (e.type === "step_started") most = Math.max(most, ++inFlight);
        if (e.type === "step_done" || e.type === "step_failed") inFlight--;
      },
    });
    expect(most).toBe(3);
    const applied = events.filter((e) => e.type === "change_applied");
    expect(applied).toHaveLength(12);
    expect(
      applied.every(
        (e) => e.type === "change_applied" && e.action === "create" && e.id?.startsWith("bkdtg_"),
      ),
    ).toBe(true);
    await bench.apply([], { allowEmpty: true });
  });

  it("creates reference targets before their referrers", async () => {
    bench.reset();
    await bench.apply(
      [
        res("event_subscriptions.s", {
          sources: [{ type: "api_key_created.v0" }],
          destination_ids: [{ $ref: "event_destinations.d" }],
        }),
        res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k" } } }),
        res("edges.tcp.edgtcp_example01.backend", { backend_id: { $ref: "tunnel_group_backends.t" } }),
        res("tunnel_group_backends.t", {}),
      ],
      { parallelism: 8 },
    );
    const calls = bench.calls();
    expect(calls.indexOf("POST /event_destinations")).toBeLessThan(
      calls.indexOf("POST /event_subscriptions"),
    );
    expect(calls.indexOf("POST /backends/tunnel_group")).toBeLessThan(
      calls.indexOf("PUT /edges/tcp/edgtcp_example01/backend"),
    );
    await bench.apply([], { allowEmpty: true });
  });

  it("records each created object's fingerprint of its desired values, refs resolved", async () => {
    bench.reset();
    const resources = [
      res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k" } } }),
      res("event_subscriptions.s", {
        description: "refers",
        sources: [{ type: "api_key_created.v0" }],
        destination_ids: [{ $ref: "event_destinations.d" }],
      }),
      res("api_keys.k", { description: "plain", metadata: { team: "a" } }),
    ];
    const { state } = await bench.apply(resources);
    const ids = new Map(Object.values(state.resources).map((r) => [r.address, r.id]));
    for (const r of resources) {
      const kind = getKind(r.kind);
      const fields = resolveRefs(r.fields, (a) => ids.get(a));
      expect(state.resources[r.address]?.fingerprint, r.address).toBe(
        valuesFingerprint(kind, desiredValues(kind, fields)),
      );
    }
    await bench.apply([], { allowEmpty: true });
  });

  it("once interrupted, starts nothing new; what ran is recorded", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const err = await reconcile({
      desired: desired(backends(10), "marker", bench.dir),
      api: bench.api,
      store: bench.store,
      signal: controller.signal,
      options: { parallelism: 2 },
      onEvent: (e) => {
        if (e.type === "step_started" && !controller.signal.aborted) controller.abort(reason);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyFailedError);
    const outcomes = (err as ApplyFailedError).outcomes;
    const done = outcomes.filter((o) => o.status === "done");
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThanOrEqual(2);
    expect(outcomes.filter((o) => o.status === "not-started")).toHaveLength(10 - done.length);
    expect((err as Error).message).toMatch(/^apply interrupted/);
    expect((err as Error).cause).toBe(reason);
    const state = await bench.store.read();
    for (const o of done) expect(state.resources[o.change.address]?.id).toBe(o.id);
    await bench.apply([], { allowEmpty: true });
  });
});

describe("a create whose answer is lost", () => {
  let proxy: Server;
  let proxyUrl: string;
  let dropped = 0;
  beforeAll(async () => {
    // Forwards everything to the server, but answers the first POST by closing the connection after
    // the server has processed it: the client cannot know whether the object was created.
    const target = new URL(bench.server.url);
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const up = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            const body: Buffer[] = [];
            answer.on("data", (c: Buffer) => body.push(c));
            answer.on("end", () => {
              if (req.method === "POST" && dropped === 0) {
                dropped++;
                req.socket.destroy();
                return;
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            });
          },
        );
        up.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  it("is found by its ownership marker and recorded, not sent again", async () => {
    const api = new ApiClient({ baseUrl: proxyUrl, apiKey: bench.server.token, retry: { retries: 0 } });
    const events: EngineEvent[] = [];
    bench.reset();
    try {
      await reconcile({
        desired: desired([res("tunnel_group_backends.lost", { description: "x" })], "marker", bench.dir),
        api,
        store: bench.store,
        onEvent: (e) => events.push(e),
      });
    } finally {
      await api.close();
    }
    expect(dropped).toBe(1);
    expect(bench.calls()).toEqual(["POST /backends/tunnel_group"]);
    const recovered = events.find((e) => e.type === "create_recovered");
    expect(recovered).toMatchObject({ address: "tunnel_group_backends.lost" });
    const state = await bench.store.read();
    expect(state.resources["tunnel_group_backends.lost"]?.id).toBe(
      recovered?.type === "create_recovered" ? recovered.id : "",
    );
    await bench.apply([], { allowEmpty: true });
  });
});
