/**
 * A kind's list read with remembered page cursors (src/engine/pages.ts), against the reference server:
 * whatever was created or deleted since the cursors were taken, the read gives exactly the list a
 * plain read gives, in order; with nothing changed, its pages are asked for at once (one request each).
 */
import fc from "fast-check";
import pLimit from "p-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/index.js";
import { readPages } from "../../src/engine/pages.js";
import { getKind } from "../../src/model/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let api: ApiClient;
const kind = { ...getKind("tunnel_group_backend"), listKey: "backends" };
const run = pLimit(8);
const signal = new AbortController().signal;

beforeAll(async () => {
  server = await startTestServer({ fixtures: false });
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 0 } });
  await Promise.all(Array.from({ length: 320 }, (_, i) => run(() => create(`seed ${i}`))));
}, 60_000);
afterAll(() => server.close());

const create = (description: string) => api.post<{ id: string }>(kind.path, { description });
const plain = async () =>
  (await api.listAll<{ id: string }>(kind.path, kind.listKey, { limit: 100 })).map((i) => i.id);
const gets = () => server.requests.filter((r) => r.method === "GET").length;

describe("readPages", () => {
  it("reports a page without the kind's list as an error of the API, as the client's list does", async () => {
    const err = await readPages(api, { ...kind, listKey: "nope" }, [], run, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).format()).toMatch(/^GET \/backends\/tunnel_group: 200 .*no list "nope"/);
  });

  it("asks for every page at once when nothing changed, and gives the plain list", async () => {
    const first = await readPages(api, kind, [], run, signal);
    expect(first.items.map((i) => i.id)).toEqual(await plain());
    expect(first.cursors).toHaveLength(3);
    server.resetRequests();
    const again = await readPages(api, kind, first.cursors, run, signal);
    expect(gets()).toBe(4);
    expect(again.items.map((i) => i.id)).toEqual(await plain());
    expect(again.cursors).toEqual(first.cursors);
  });

  it("gives the plain list whatever was created or deleted since the cursors were taken", async () => {
    let cursors = (await readPages(api, kind, [], run, signal)).cursors;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(120),
        fc.array(fc.nat(10_000), { maxLength: 40 }),
        fc.boolean(),
        async (creates, deletes, deleteCursor) => {
          const ids = await plain();
          const doomed = new Set(deletes.map((d) => ids[d % ids.length] as string));
          if (deleteCursor && cursors[0] !== undefined) doomed.add(cursors[0]);
          await Promise.all([...doomed].map((id) => run(() => api.delete(`${kind.path}/${id}`))));
          await Promise.all(Array.from({ length: creates }, (_, i) => run(() => create(`new ${i}`))));
          const read = await readPages(api, kind, cursors, run, signal);
          expect(read.items.map((i) => i.id)).toEqual(await plain());
          cursors = read.cursors;
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it("reads a plain list when the API refuses a cursor", async () => {
    const read = await readPages(api, kind, ["bkdtg_not_an_item_of_this_list"], run, signal);
    expect(read.items.map((i) => i.id)).toEqual(await plain());
  });
});
