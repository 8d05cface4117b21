import { describe, expect, it } from "vitest";
import { ApiError, NetworkError } from "../../src/client/index.js";
import { backoffDelay, parseRetryAfter } from "../../src/client/retry.js";
import { destroySocket, errorBody, json, sequence, useHarness } from "./server.js";

const { setup } = useHarness({ apiKey: "k", retry: { retries: 3, baseDelayMs: 20, maxDelayMs: 100 } });

const unavailable = json(503, errorBody(503, "TGW_5030", "service unavailable"));
const ok = json(200, { id: "ak_1" });

describe("retries of idempotent methods", () => {
  it("backs off on 503 then succeeds", async () => {
    const { server, client } = await setup();
    server.handler = sequence(unavailable, unavailable, ok);
    await expect(client.get("/api_keys/ak_1")).resolves.toEqual({ id: "ak_1" });
    expect(server.seen).toHaveLength(3);
  });

  it("honours Retry-After (delta-seconds), measured", async () => {
    const { server, client } = await setup();
    server.handler = sequence(json(429, errorBody(429, "TGW_4290", "slow down"), { "retry-after": "1" }), ok);
    const started = performance.now();
    await client.patch("/api_keys/ak_1", { description: "d" });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    const [first, second] = server.seen;
    expect(second && first ? second.at - first.at : 0).toBeGreaterThanOrEqual(999);
    expect(second?.body).toBe('{"description":"d"}');
  });

  it("gives up after the configured retries with the last error", async () => {
    const { server, client } = await setup({ retry: { retries: 2, baseDelayMs: 1 } });
    server.handler = unavailable;
    const err = (await client.delete("/api_keys/ak_1").catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.mayHaveBeenCreated).toBe(false);
    expect(server.seen).toHaveLength(3);
  });

  it("does not retry 4xx other than 429", async () => {
    const { server, client } = await setup();
    server.handler = json(404, errorBody(404, "TGW_404", "no such key"));
    await expect(client.get("/api_keys/ak_x")).rejects.toBeInstanceOf(ApiError);
    expect(server.seen).toHaveLength(1);
  });

  it("retries a GET after a connection reset", async () => {
    const { server, client } = await setup();
    server.handler = sequence(destroySocket, ok);
    await expect(client.get("/api_keys/ak_1")).resolves.toEqual({ id: "ak_1" });
    expect(server.seen).toHaveLength(2);
  });

  it("retries a GET after the per-attempt timeout", async () => {
    const { server, client } = await setup({ timeoutMs: 150 });
    server.handler = sequence(() => {}, ok);
    await expect(client.get("/api_keys/ak_1")).resolves.toEqual({ id: "ak_1" });
    expect(server.seen).toHaveLength(2);
  });

  it("says what was attempted when the connection is refused", async () => {
    const { server, client } = await setup({ retry: { retries: 2, baseDelayMs: 1 } });
    await server.close();
    const err = (await client.get("/api_keys").catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe("network");
    expect(err.reason).toBe("ECONNREFUSED");
    expect(err.attempts).toBe(3);
    expect(err.message).toBe(
      `GET ${server.url}/api_keys failed after 3 attempts: connection refused (ECONNREFUSED)`,
    );
  });
});

describe("POST", () => {
  it("is not retried on 503, and says the resource may have been created", async () => {
    const { server, client } = await setup();
    server.handler = sequence(unavailable, json(201, { id: "ak_1" }));
    const err = (await client.post("/api_keys", {}).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.mayHaveBeenCreated).toBe(true);
    expect(err.message).toMatch(/may or may not have been created/);
    expect(err.format()).toMatch(
      /^POST \/api_keys: 503 TGW_5030 service unavailable \(operation op_test\); .*may or may not/,
    );
    expect(server.seen).toHaveLength(1);
  });

  it("is not retried on a connection reset, and says the resource may have been created", async () => {
    const { server, client } = await setup();
    server.handler = sequence(destroySocket, json(201, { id: "ak_1" }));
    const err = (await client
      .post("/api_keys", { description: "x" })
      .catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.mayHaveBeenCreated).toBe(true);
    expect(err.attempts).toBe(1);
    expect(err.message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/api_keys failed after 1 attempt: /);
    expect(err.message).toMatch(/may or may not have been created/);
    expect(server.seen).toHaveLength(1);
  });

  it("is not retried when the connection is refused, and says nothing was created", async () => {
    const { server, client } = await setup();
    await server.close();
    const err = (await client.post("/api_keys", {}).catch((e: unknown) => e)) as NetworkError;
    expect(err.attempts).toBe(1);
    expect(err.mayHaveBeenCreated).toBe(false);
    expect(err.message).not.toMatch(/may or may not/);
  });

  it("is retried on 429 (rejected before processing)", async () => {
    const { server, client } = await setup();
    const limited = json(429, errorBody(429, "TGW_4290", "rate limited"), { "retry-after": "0" });
    server.handler = sequence(limited, limited, json(201, { id: "ak_1" }));
    await expect(client.post("/api_keys", {})).resolves.toEqual({ id: "ak_1" });
    expect(server.seen).toHaveLength(3);
  });
});

describe("policy helpers", () => {
  it("parses Retry-After as seconds or HTTP-date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(["2"], now)).toBe(2000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("backs off exponentially with full jitter under the cap", () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, opts, () => 0.999)).toBe(99);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(200);
    expect(backoffDelay(10, opts, () => 0.999)).toBe(999);
    expect(backoffDelay(4, opts, () => 0)).toBe(0);
  });

  it("throws at once when Retry-After exceeds maxRetryAfterMs", async () => {
    const { server, client } = await setup({ retry: { maxRetryAfterMs: 1000 } });
    server.handler = json(429, errorBody(429, "TGW_4290", "rate limited"), { "retry-after": "60" });
    // Waiting the 60 s would overrun the test's timeout: no clock needed to see it did not.
    await expect(client.get("/api_keys")).rejects.toMatchObject({ status: 429 });
    expect(server.seen).toHaveLength(1);
  });
});
