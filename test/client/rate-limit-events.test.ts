/** The client tells `onResponse` how long its rate limiter held an attempt back (for tgw watch metrics). */
import { expect, it } from "vitest";
import type { ResponseEvent } from "../../src/client/index.js";
import { WatchMetrics } from "../../src/watch/metrics.js";
import { json, useHarness } from "./server.js";

const harness = useHarness({ apiKey: "k" });

it("reports the limiter's wait on the attempts it held back, and the metrics count them", async () => {
  const server = await harness.server(json(200, { ok: true }));
  const events: ResponseEvent[] = [];
  const metrics = new WatchMetrics();
  const client = harness.client({
    baseUrl: server.url,
    rateLimit: { requests: 2, windowMs: 300 },
    onResponse: (e) => {
      events.push(e);
      metrics.observeResponse(e);
    },
  });
  await Promise.all(Array.from({ length: 4 }, (_, i) => client.get(`/api_keys/ak_${i}`)));
  const held = events.filter((e) => e.rateLimitWaitMs !== undefined);
  // At most two in a window: at least the last two waited for the window to move on.
  expect(held.length).toBeGreaterThanOrEqual(2);
  expect(Math.max(...held.map((e) => e.rateLimitWaitMs ?? 0))).toBeGreaterThanOrEqual(200);
  const text = (await metrics.render()).body;
  expect(text).toContain(`tgw_rate_limit_waits_total{source="client"} ${held.length}`);
  expect(text).toMatch(/tgw_rate_limit_wait_seconds_total 0\.\d+/);
});
