/**
 * Pagination (docs/design.md section 5): `limit` 1..100 (default 100) and `before_id`, newest first,
 * `next_page_uri` a full URL with `before_id=<last id>&limit=<limit>`, null on the last page. Walked
 * over 250 objects with limits 1, 7 and 100: every object exactly once, in creation order reversed.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Answer, type Caller, caller } from "./http.js";

let server: TestServer;
let call: Caller;
/** Ids in creation order. */
const created: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ fixtures: false });
  call = caller(server.url, server.token);
  for (let i = 0; i < 250; i++) {
    const res = await call("POST", "/ip_policies", { description: `p${i}` });
    created.push(res.body.id);
  }
});
afterAll(() => server.close());

/** Follows next_page_uri from the first page; returns the ids in order and the pages' sizes. */
async function walk(limit: number): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let next: string | null = `${server.url}/ip_policies?limit=${limit}`;
  while (next !== null) {
    const page: Answer = await call("GET", next);
    expect(page.status).toBe(200);
    expect(page.body.uri).toBe(`${server.url}/ip_policies`);
    ids.push(...page.body.ip_policies.map((p: { id: string }) => p.id));
    sizes.push(page.body.ip_policies.length);
    const last = page.body.ip_policies.at(-1)?.id;
    if (page.body.next_page_uri !== null) {
      expect(page.body.next_page_uri).toBe(`${server.url}/ip_policies?before_id=${last}&limit=${limit}`);
    }
    next = page.body.next_page_uri;
  }
  return { ids, sizes };
}

for (const limit of [1, 7, 100]) {
  test(`limit ${limit}: all 250 newest first, none twice, none missing`, async () => {
    const { ids, sizes } = await walk(limit);
    expect(ids).toEqual([...created].reverse());
    expect(sizes.length).toBe(Math.ceil(250 / limit));
    expect(sizes.slice(0, -1).every((s) => s === limit)).toBe(true);
  });
}

test("default limit is 100", async () => {
  const page = await call("GET", "/ip_policies");
  expect(page.body.ip_policies).toHaveLength(100);
  expect(page.body.next_page_uri).toBe(`${server.url}/ip_policies?before_id=${created[150]}&limit=100`);
});

test("a page boundary survives the deletion of the item it starts after", async () => {
  const first = await call("GET", "/ip_policies?limit=10");
  const boundary = first.body.ip_policies.at(-1).id;
  expect((await call("DELETE", `/ip_policies/${boundary}`)).status).toBe(204);
  const second = await call("GET", first.body.next_page_uri);
  expect(second.status).toBe(200);
  expect(second.body.ip_policies[0].id).toBe(created[239]);
  created.splice(created.indexOf(boundary), 1);
});

test("the project's API client reads every page", async () => {
  const client = new ApiClient({ baseUrl: server.url, apiKey: server.token });
  try {
    const all = await client.listAll<{ id: string }>("/ip_policies", "ip_policies", { limit: 33 });
    expect(all.map((p) => p.id)).toEqual([...created].reverse());
  } finally {
    await client.close();
  }
});
