import { describe, expect, it } from "vitest";
import { ApiError, type ResponseEvent } from "../../src/client/index.js";
import { TgwError } from "../../src/errors.js";
import { errorBody, json, send, type TestServer, useHarness } from "./server.js";

const KEY = "tgw_secret_key_123";
const { setup, server: startTracked } = useHarness({ apiKey: KEY, retry: { baseDelayMs: 5 } });

describe("requests", () => {
  it("sends auth and version headers, JSON body with content type, and parses JSON", async () => {
    const { server, client } = await setup();
    server.handler = (_req, res, seen) => send(res, 201, { id: "ak_1", echo: JSON.parse(seen.body) });
    const created = await client.post<{ id: string; echo: unknown }>("/api_keys", { description: "ci" });
    expect(created).toEqual({ id: "ak_1", echo: { description: "ci" } });

    server.handler = json(200, { id: "ak_1" });
    await client.get("/api_keys/ak_1", { query: { x: 1, skip: undefined } });

    const [post, get] = server.seen;
    expect(post?.method).toBe("POST");
    expect(post?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(post?.headers["service-version"]).toBe("2");
    expect(post?.headers["content-type"]).toBe("application/json");
    expect(get?.url).toBe("/api_keys/ak_1?x=1");
    expect(get?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(get?.headers["service-version"]).toBe("2");
    expect(get?.headers["content-type"]).toBeUndefined();
    // Keep-alive: sequential calls reuse connections (undici may keep a second one warm).
    for (let i = 0; i < 4; i++) await client.get("/api_keys/ak_1");
    expect(new Set(server.seen.map((s) => s.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it("returns undefined for 204 and appends paths to a base URL with a path", async () => {
    const { server, client } = await setup({}, "/v2/");
    server.handler = json(204);
    await expect(client.delete("/api_keys/ak_1")).resolves.toBeUndefined();
    expect(server.seen[0]?.url).toBe("/v2/api_keys/ak_1");
    expect(server.seen[0]?.method).toBe("DELETE");
  });

  it("turns the server error body into an ApiError with every field", async () => {
    const { server, client } = await setup();
    server.handler = json(400, errorBody(400, "TGW_1003", "description is 300 bytes, limit 255", "op_123"));
    const err = await client.post("/api_keys", { description: "x".repeat(300) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(TgwError);
    const e = err as ApiError;
    expect(e.code).toBe("api");
    expect(e.status).toBe(400);
    expect(e.errorCode).toBe("TGW_1003");
    expect(e.message).toBe("description is 300 bytes, limit 255");
    expect(e.operationId).toBe("op_123");
    expect(e.method).toBe("POST");
    expect(e.path).toBe("/api_keys");
    expect(e.mayHaveBeenCreated).toBe(false);
    expect(e.format()).toBe(
      "POST /api_keys: 400 TGW_1003 description is 300 bytes, limit 255 (operation op_123)",
    );
    expect(server.seen).toHaveLength(1);
  });

  it("gives a sensible ApiError for HTML and empty error bodies", async () => {
    const { server, client } = await setup({ retry: { retries: 0 } });
    server.handler = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body>bad gateway</body></html>");
    };
    const html = (await client.get("/api_keys").catch((e: unknown) => e)) as ApiError;
    expect(html).toBeInstanceOf(ApiError);
    expect(html.status).toBe(502);
    expect(html.errorCode).toBeUndefined();
    expect(html.operationId).toBeUndefined();
    expect(html.message).toMatch(/Bad Gateway.*text\/html, 37 bytes/);
    expect(html.format()).toMatch(/^GET \/api_keys: 502 Bad Gateway/);

    server.handler = json(404);
    const empty = (await client.get("/api_keys/ak_x").catch((e: unknown) => e)) as ApiError;
    expect(empty.status).toBe(404);
    expect(empty.message).toMatch(/Not Found.*empty body/);
  });

  it("reads a body sent in pieces, a character split between them, and repeated headers", async () => {
    const { server, client } = await setup({ retry: { retries: 0 } });
    const bytes = Buffer.from(JSON.stringify({ id: "ak_1", description: "café ☕" }));
    const cut = bytes.indexOf(Buffer.from("☕")) + 1;
    server.handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
    };
    await expect(client.get("/api_keys/ak_1")).resolves.toEqual({ id: "ak_1", description: "café ☕" });

    server.handler = (_req, res) => {
      res.setHeader("Retry-After", ["7", "9"]);
      send(res, 429, errorBody(429, "TGW_4290", "slow down"));
    };
    const err = (await client.get("/api_keys").catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(7_000);
  });

  it("reports each attempt to onResponse without bodies or headers", async () => {
    const events: ResponseEvent[] = [];
    const { server, client } = await setup({
      onResponse: (e) => {
        events.push(e);
        throw new Error("a broken hook must not break the call");
      },
    });
    let n = 0;
    server.handler = (_req, res) =>
      n++ === 0 ? send(res, 503, errorBody(503, "TGW_5030", "busy")) : send(res, 200, { secret: "s3cr3t" });
    await client.get("/api_keys/ak_1", { query: { limit: 5 } });
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ method: "GET", path: "/api_keys/ak_1", status: 503, attempt: 1 });
    expect(events[0]?.retryInMs).toBeGreaterThanOrEqual(0);
    expect(events[1]).toMatchObject({ status: 200, attempt: 2 });
    expect(events[1]?.retryInMs).toBeUndefined();
    expect(events[1]?.durationMs).toBeGreaterThan(0);
    const text = JSON.stringify(events);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("s3cr3t");
    expect(text).not.toContain("busy");
  });
});

describe("lists", () => {
  function pages(server: TestServer, count: number, per: number) {
    server.handler = (_req, res, seen) => {
      const url = new URL(seen.url, server.url);
      const before = url.searchParams.get("before_id");
      const page = before === null ? 0 : Number(before.slice(3)) / per;
      const keys = Array.from({ length: per }, (_, i) => ({ id: `ak_${page * per + i + 1}` }));
      const last = page === count - 1;
      send(res, 200, {
        keys,
        uri: `${server.url}/api_keys`,
        next_page_uri: last ? null : `${server.url}/api_keys?before_id=ak_${(page + 1) * per}&limit=${per}`,
      });
    };
  }

  it("follows next_page_uri across 3 pages, yielding items one by one", async () => {
    const { server, client } = await setup();
    pages(server, 3, 2);
    const ids: string[] = [];
    for await (const key of client.list<{ id: string }>("/api_keys", "keys", { limit: 2 })) ids.push(key.id);
    expect(ids).toEqual(["ak_1", "ak_2", "ak_3", "ak_4", "ak_5", "ak_6"]);
    expect(server.seen.map((s) => s.url)).toEqual([
      "/api_keys?limit=2",
      "/api_keys?before_id=ak_2&limit=2",
      "/api_keys?before_id=ak_4&limit=2",
    ]);
    expect(server.seen.every((s) => s.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("stops fetching when the consumer stops", async () => {
    const { server, client } = await setup();
    pages(server, 3, 2);
    for await (const key of client.list<{ id: string }>("/api_keys", "keys", { limit: 2 })) {
      if (key.id === "ak_1") break;
    }
    expect(server.seen).toHaveLength(1);
  });

  it("listAll collects every page", async () => {
    const { server, client } = await setup();
    pages(server, 3, 3);
    const all = await client.listAll<{ id: string }>("/api_keys", "keys", { limit: 3 });
    expect(all).toHaveLength(9);
  });

  it("refuses a next_page_uri on another origin, never sending the key there", async () => {
    const { server, client } = await setup();
    const other = await startTracked(json(200, { keys: [], next_page_uri: null }));
    server.handler = json(200, {
      keys: [{ id: "ak_1" }],
      next_page_uri: `${other.url}/api_keys?before_id=ak_1`,
    });
    const err = await client.listAll("/api_keys", "keys").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/not the API origin/);
    expect(other.seen).toHaveLength(0);
  });

  it("rejects a page without the list key and an invalid limit", async () => {
    const { server, client } = await setup();
    server.handler = json(200, { items: [], next_page_uri: null });
    await expect(client.listAll("/api_keys", "keys")).rejects.toThrow(/no list "keys"/);
    await expect(client.listAll("/api_keys", "keys", { limit: 101 })).rejects.toThrow(RangeError);
    await expect(client.listAll("/api_keys", "keys", { limit: 0 })).rejects.toThrow(RangeError);
  });
});

describe("abort", () => {
  it("rejects an in-flight call with the signal's reason", async () => {
    const { server, client } = await setup();
    server.handler = () => {}; // never answers
    const controller = new AbortController();
    const reason = new Error("shutting down");
    setTimeout(() => controller.abort(reason), 50);
    await expect(client.get("/api_keys", { signal: controller.signal })).rejects.toBe(reason);
  });

  it("stops waiting for a backoff", async () => {
    const { server, client } = await setup();
    server.handler = json(503, errorBody(503, "TGW_5030", "busy"), { "retry-after": "5" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await client.get("/api_keys", { signal: controller.signal }).catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(server.seen).toHaveLength(1);
  });

  it("stops waiting for a rate-limit slot", async () => {
    const { server, client } = await setup({ rateLimit: { requests: 1, windowMs: 10_000 } });
    server.handler = json(200, {});
    await client.get("/a");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client.get("/b", { signal: controller.signal })).rejects.toThrow();
    expect(server.seen).toHaveLength(1);
  });

  it("close() rejects calls waiting for a rate-limit slot and later calls", async () => {
    const { server, client } = await setup({ rateLimit: { requests: 1, windowMs: 10_000 } });
    server.handler = json(200, {});
    await client.get("/a");
    const waiting = client.get("/b").catch((e: unknown) => e);
    await client.close();
    expect(await waiting).toMatchObject({ code: "closed" });
    await expect(client.get("/c")).rejects.toMatchObject({ code: "closed" });
    expect(server.seen).toHaveLength(1);
  });

  it("sends nothing when already aborted", async () => {
    const { server, client } = await setup();
    await expect(client.post("/api_keys", {}, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(server.seen).toHaveLength(0);
  });
});
