/**
 * One apply converges as far as it can: a failed change does not stop the changes that do not depend
 * on it, every failure is reported together at the end, and a create proven not to have happened (no
 * object carries its marker) is sent again, after a backoff, within a bound.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import {
  ApplyFailedError,
  applyPlan,
  type EngineEvent,
  reconcile,
  StateJournal,
} from "../../src/engine/index.js";
import { freePort } from "../helpers/ports.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const fastRetry = { retries: 3, baseDelayMs: 5, maxDelayMs: 20 };

describe("a failed change", () => {
  it("does not stop the changes that do not depend on it; all failures are reported at the end", async () => {
    const tooLong = "x".repeat(300); // the API's limit is 255 bytes: 400
    const wanted = [
      res("event_destinations.bad1", {
        description: tooLong,
        format: "json",
        target: { monitoring_target: { api_key: "k" } },
      }),
      res("event_destinations.bad2", {
        description: tooLong,
        format: "json",
        target: { monitoring_target: { api_key: "k" } },
      }),
      res("event_subscriptions.s", {
        sources: [{ type: "api_key_created.v0" }],
        destination_ids: [{ $ref: "event_destinations.bad1" }],
      }),
      ...Array.from({ length: 5 }, (_, i) => res(`tunnel_group_backends.b${i}`, { description: `${i}` })),
    ];
    const err = await bench.apply(wanted, { parallelism: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyFailedError);
    const status = Object.fromEntries(
      (err as ApplyFailedError).outcomes.map((o) => [o.change.address, o.status]),
    );
    expect(status).toEqual({
      "event_destinations.bad1": "failed",
      "event_destinations.bad2": "failed",
      "event_subscriptions.s": "not-started",
      "tunnel_group_backends.b0": "done",
      "tunnel_group_backends.b1": "done",
      "tunnel_group_backends.b2": "done",
      "tunnel_group_backends.b3": "done",
      "tunnel_group_backends.b4": "done",
    });
    const message = (err as Error).message;
    expect(message).toMatch(/^apply failed: 2 changes failed\n/);
    expect(message).toMatch(/event_destinations\.bad1: POST \/event_destinations: 400 /);
    expect(message).toMatch(/event_destinations\.bad2: POST \/event_destinations: 400 /);
    expect(message).toMatch(/5 done, 1 not started \(event_subscriptions\.s\)/);
    await bench.apply([], { allowEmpty: true });
  });
});

describe("a create that failed with no object carrying its marker", () => {
  let proxy: Server;
  let proxyUrl: string;
  let failures = 2;
  beforeAll(async () => {
    // Answers the first POSTs 503 without passing them on (nothing was created), forwards the rest.
    const target = new URL(bench.server.url);
    proxy = createServer((req, res) => {
      if (req.method === "POST" && failures > 0) {
        failures--;
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error_code: "TGW_5030", status_code: 503, msg: "unavailable" }));
        req.resume();
        return;
      }
      const up = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  const applyThroughProxy = async (createRetry: typeof fastRetry, events: EngineEvent[]) => {
    const api = new ApiClient({ baseUrl: proxyUrl, apiKey: bench.server.token, retry: { retries: 0 } });
    try {
      return await reconcile({
        desired: desired([res("tunnel_group_backends.again", { description: "x" })], "marker", bench.dir),
        api,
        store: bench.store,
        options: { createRetry },
        onEvent: (e) => events.push(e),
      });
    } finally {
      await api.close();
    }
  };

  it("is sent again after a backoff, and the apply succeeds in one run", async () => {
    const events: EngineEvent[] = [];
    bench.reset();
    await applyThroughProxy(fastRetry, events);
    expect(failures).toBe(0);
    expect(bench.calls()).toEqual(["POST /backends/tunnel_group"]);
    expect(
      events
        .filter((e) => e.type === "create_retrying")
        .map((e) => e.type === "create_retrying" && e.attempt),
    ).toEqual([2, 3]);
    const state = await bench.store.read();
    expect(state.resources["tunnel_group_backends.again"]?.id).toMatch(/^bkdtg_/);
    await bench.apply([], { allowEmpty: true });
  });

  it("is retried within its bound only", async () => {
    failures = 3;
    const events: EngineEvent[] = [];
    bench.reset();
    const err = await applyThroughProxy({ ...fastRetry, retries: 2 }, events).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyFailedError);
    expect((err as Error).message).toMatch(
      /tunnel_group_backends\.again: POST \/backends\/tunnel_group: 503 TGW_5030 unavailable; not created \(no object with its ownership marker exists\)/,
    );
    expect(events.filter((e) => e.type === "create_retrying")).toHaveLength(2);
    expect(bench.calls()).toEqual([]);
    failures = 0;
  });
});

describe("an API that cannot be reached", () => {
  it("stops the apply at once: nothing new starts, the rest is reported not started", async () => {
    const wanted = Array.from({ length: 5 }, (_, i) =>
      res(`tunnel_group_backends.u${i}`, { description: `${i}` }),
    );
    const { plan } = await bench.plan(wanted);
    const port = await freePort();
    let requests = 0;
    const api = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: "k",
      retry: { retries: 0 },
      onResponse: () => requests++,
    });
    const journal = new StateJournal(bench.store, await bench.store.read());
    try {
      const err = await applyPlan(plan, desired(wanted, "marker", bench.dir), api, journal, {
        parallelism: 1,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplyFailedError);
      const statuses = (err as ApplyFailedError).outcomes.map((o) => o.status);
      expect(statuses).toEqual(["failed", "not-started", "not-started", "not-started", "not-started"]);
      expect(requests).toBe(1);
    } finally {
      await api.close();
    }
  });
});
