/**
 * Reads sent early (src/client/prefetch.ts), against the reference server: whatever reads were
 * remembered (the ones asked for, others, paths that do not exist, queries in another order), every
 * GET through the `PrefetchingApi` answers what the same GET answers without it, each remembered read
 * is sent at most once (a read remembered twice too), and nothing is sent that was neither remembered
 * nor asked for.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/index.js";
import { PrefetchingApi, readsFile } from "../../src/client/prefetch.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let api: ApiClient;
const ids: string[] = [];
const dir = mkdtempSync(join(tmpdir(), "tgw-prefetch-"));

beforeAll(async () => {
  server = await startTestServer({ fixtures: false });
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 0 } });
  for (let i = 0; i < 150; i++)
    ids.push((await api.post<{ id: string }>("/backends/tunnel_group", { description: `b ${i}` })).id);
}, 60_000);
afterAll(() => server.close());

/** A GET as the refresh makes it: a path, and a query or none. */
interface Read {
  path: string;
  query?: Record<string, string | number>;
}

const read: fc.Arbitrary<Read> = fc.oneof(
  fc.nat(149).map((i) => ({ path: `/backends/tunnel_group/${ids[i]}` })),
  fc.constant({ path: "/backends/tunnel_group/bkdtg_gone" }),
  fc.constant({ path: "/no_such_kind" }),
  fc.constantFrom(10, 50, 100).map((limit) => ({ path: "/backends/tunnel_group", query: { limit } })),
  fc
    .tuple(fc.constantFrom(10, 100), fc.nat(149))
    .map(([limit, i]) => ({ path: "/backends/tunnel_group", query: { limit, before_id: ids[i] as string } })),
);

/** The answer of a GET, or its error's status: what a caller sees. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (body) => ({ body }),
    (err: unknown) => ({ status: err instanceof ApiError ? err.status : String(err) }),
  );

/** The server logs a request once its response is sent: a moment after the client has it. */
const settle = () => new Promise((r) => setTimeout(r, 30));

const gets = () => server.requests.filter((r) => r.method === "GET").length;

describe("PrefetchingApi", () => {
  it("answers every GET as the API does, sending each read at most once", async () => {
    const file = join(dir, "reads.json");
    await fc.assert(
      fc.asyncProperty(
        fc.array(read, { maxLength: 40 }),
        fc.array(read, { maxLength: 40 }),
        fc.boolean(),
        async (remembered, asked, waitFirst) => {
          // The remembered reads, as a plan records them.
          const recorder = new PrefetchingApi(api);
          recorder.startRecording();
          await Promise.all(
            remembered.map((r) => outcome(recorder.get(r.path, r.query ? { query: r.query } : {}))),
          );
          recorder.save(file);
          const expected = await Promise.all(
            asked.map((r) => outcome(api.get(r.path, r.query ? { query: r.query } : {}))),
          );
          await settle();
          server.resetRequests();
          const early = new PrefetchingApi(api);
          expect(early.prefetch(file)).toBe(new Set(JSON.parse(readFileSync(file, "utf8"))).size);
          if (waitFirst) await new Promise((r) => setTimeout(r, 20));
          const answers = await Promise.all(
            asked.map((r) => outcome(early.get(r.path, r.query ? { query: r.query } : {}))),
          );
          early.stop();
          await settle();
          expect(answers).toEqual(expected);
          expect(gets()).toBeLessThanOrEqual(remembered.length + asked.length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("sends what it remembers before it is asked, and answers from it", async () => {
    const file = join(dir, "one.json");
    const recorder = new PrefetchingApi(api);
    recorder.startRecording();
    await recorder.get(`/backends/tunnel_group/${ids[0]}`);
    await recorder.get("/backends/tunnel_group", { query: { limit: 100, before_id: ids[120] as string } });
    recorder.stopRecording();
    await recorder.get(`/backends/tunnel_group/${ids[1]}`); // not recorded
    recorder.save(file);
    await settle();
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([
      `/backends/tunnel_group/${ids[0]}`,
      `/backends/tunnel_group?limit=100&before_id=${ids[120]}`,
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    server.resetRequests();
    const early = new PrefetchingApi(api);
    early.prefetch(file);
    await new Promise((r) => setTimeout(r, 100));
    expect(gets()).toBe(2);
    await early.get(`/backends/tunnel_group/${ids[0]}`);
    await early.get("/backends/tunnel_group", { query: { limit: 100, before_id: ids[120] as string } });
    expect(gets()).toBe(2);
    // Used once: asked again, it is read again.
    await early.get(`/backends/tunnel_group/${ids[0]}`);
    expect(gets()).toBe(3);
  });

  it("keeps one file per API, key and workspace", () => {
    const env = { TGW_CACHE_DIR: dir };
    const a = readsFile("https://api.example.com", "k1", "ws", env);
    expect(readsFile("https://api.example.com", "k1", "ws", env)).toBe(a);
    expect(readsFile("https://api.example.com", "k2", "ws", env)).not.toBe(a);
    expect(readsFile("https://api.example.org", "k1", "ws", env)).not.toBe(a);
    expect(readsFile("https://api.example.com", "k1", "other", env)).not.toBe(a);
  });
});
