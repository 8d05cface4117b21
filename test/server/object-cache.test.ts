/**
 * The store's cache of objects and settings (src/server/store/object-cache.ts): a read served from
 * memory is never older than the database, whoever wrote it (this store, another connection to the
 * same data file, a transaction rolled back), and what it serves cannot be changed by a caller; nor
 * are the responses and JSON texts made once from cached objects (src/server/resources/render.ts), nor
 * the list pages sent again (src/server/routes/context.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../src/server/server.js";
import { ResourceStore } from "../../src/server/store/resource-store.js";
import { type Answer, type Caller, caller } from "./http.js";

const KEY = "object-cache-test-key-0123456789";
const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");
let dir: string;
const open: ResourceStore[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tgw-object-cache-"));
});
afterAll(() => {
  for (const s of open) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function store(path?: string): ResourceStore {
  const s = new ResourceStore(path, { dataKey: KEY });
  open.push(s);
  return s;
}

const descriptions = (s: ResourceStore) => s.page("ip_policy", null, 100).map((o) => o.body.description);

describe("the object cache", () => {
  it("sees what another connection to the same data file wrote: objects, pages and settings", () => {
    const path = join(dir, "two-connections.db");
    const a = store(path);
    a.insert("ip_policy", "ipp_one", null, { description: "one", metadata: "" });
    expect(a.get("ipp_one")?.body.description).toBe("one");
    expect(descriptions(a)).toEqual(["one"]);
    expect(a.getMeta("abuse_reports")).toBeUndefined();

    const b = store(path);
    b.update("ipp_one", { description: "changed by b", metadata: "" });
    b.insert("ip_policy", "ipp_two", null, { description: "two", metadata: "" });
    b.setMeta("abuse_reports", "true");

    expect(a.get("ipp_one")?.body.description).toBe("changed by b");
    expect(descriptions(a)).toEqual(["two", "changed by b"]);
    expect(a.getMeta("abuse_reports")).toBe("true");

    b.remove("ipp_two");
    expect(a.get("ipp_two")).toBeUndefined();
    expect(descriptions(a)).toEqual(["changed by b"]);
  });

  it("keeps nothing of a transaction that was rolled back", () => {
    const s = store();
    s.insert("ip_policy", "ipp_kept", null, { description: "before", metadata: "" });
    expect(s.get("ipp_kept")?.body.description).toBe("before");
    expect(descriptions(s)).toEqual(["before"]);
    expect(() =>
      s.transaction(() => {
        s.insert("ip_policy", "ipp_rolled", null, { description: "rolled back", metadata: "" });
        s.update("ipp_kept", { description: "rolled back", metadata: "" });
        expect(s.get("ipp_rolled")?.body.description).toBe("rolled back");
        expect(s.get("ipp_kept")?.body.description).toBe("rolled back");
        expect(descriptions(s)).toEqual(["rolled back", "rolled back"]);
        s.setMeta("abuse_reports", "true");
        expect(s.getMeta("abuse_reports")).toBe("true");
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    expect(s.get("ipp_rolled")).toBeUndefined();
    expect(s.get("ipp_kept")?.body.description).toBe("before");
    expect(descriptions(s)).toEqual(["before"]);
    expect(s.getMeta("abuse_reports")).toBeUndefined();
  });

  it("keeps the subscriptions of each event type exact: a create, a change, a delete, another connection, a rollback", () => {
    const path = join(dir, "subscriptions.db");
    const [a, b] = [store(path), store(path)];
    const sub = (...types: string[]) => ({
      sources: types.map((type) => ({ type, uri: "" })),
      destination_ids: [],
    });
    const ids = (s: ResourceStore, type: string) => s.subscriptionsFor(type).map((o) => o.id);
    a.insert("event_subscription", "esb_1", null, sub("api_key_created.v0"));
    expect(ids(a, "api_key_created.v0")).toEqual(["esb_1"]);
    a.insert("event_subscription", "esb_2", null, sub("api_key_created.v0", "bot_created.v0"));
    expect(ids(a, "api_key_created.v0")).toEqual(["esb_1", "esb_2"]);
    a.update("esb_1", sub("bot_created.v0", "bot_created.v0"));
    expect(ids(a, "api_key_created.v0")).toEqual(["esb_2"]);
    expect(ids(a, "bot_created.v0")).toEqual(["esb_1", "esb_2"]);
    b.update("esb_2", sub("api_key_deleted.v0"));
    expect(ids(a, "bot_created.v0")).toEqual(["esb_1"]);
    b.remove("esb_1");
    expect(ids(a, "bot_created.v0")).toEqual([]);
    expect(() =>
      a.transaction(() => {
        a.insert("event_subscription", "esb_3", null, sub("bot_created.v0"));
        expect(ids(a, "bot_created.v0")).toEqual(["esb_3"]);
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    expect(ids(a, "bot_created.v0")).toEqual([]);
    expect(ids(a, "api_key_deleted.v0")).toEqual(["esb_2"]);
    const mem = store();
    mem.insert("event_subscription", "esb_4", null, sub("bot_created.v0"));
    expect(ids(mem, "bot_created.v0")).toEqual(["esb_4"]);
    mem.remove("esb_4");
    expect(ids(mem, "bot_created.v0")).toEqual([]);
  });

  it("serves its own writes at once, to every account view, and each account only its objects", () => {
    const s = store();
    const other = s.createAccount();
    expect(descriptions(s)).toEqual([]);
    s.insert("ip_policy", "ipp_mine", null, { description: "mine", metadata: "" });
    expect(descriptions(s)).toEqual(["mine"]);
    s.transaction(() => s.insert("ip_policy", "ipp_in_tx", null, { description: "in tx", metadata: "" }));
    expect(descriptions(s)).toEqual(["in tx", "mine"]);
    s.remove("ipp_in_tx");
    expect(descriptions(s)).toEqual(["mine"]);
    expect(other.get("ipp_mine")).toBeUndefined();
    expect(s.forAccount(s.accountId).get("ipp_mine")?.body.description).toBe("mine");
    expect(other.page("ip_policy", null, 100)).toEqual([]);
    s.update("ipp_mine", { description: "updated", metadata: "" });
    expect(s.forAccount(s.accountId).get("ipp_mine")?.body.description).toBe("updated");
    s.remove("ipp_mine");
    expect(s.get("ipp_mine")).toBeUndefined();
    expect(descriptions(s)).toEqual([]);
  });

  it("hands out objects that cannot be changed by their reader", () => {
    const s = store();
    s.insert("ip_policy", "ipp_frozen", null, { description: "frozen", metadata: "", tags: ["a"] });
    const obj = s.get("ipp_frozen");
    if (obj === undefined) throw new Error("not stored");
    expect(() => {
      obj.body.description = "changed";
    }).toThrow(TypeError);
    expect(() => (obj.body.tags as string[]).push("b")).toThrow(TypeError);
    expect(s.get("ipp_frozen")?.body).toEqual({ description: "frozen", metadata: "", tags: ["a"] });
  });
});

describe("responses of cached objects", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let call: Caller;
  beforeAll(async () => {
    server = await startServer({ bootstrapToken: "object-cache-token", checkResponses: true });
    call = caller(server.url, server.token);
  });
  afterAll(() => server.close());

  it("are the JSON of what the store holds now: read again, after a change, after a delete", async () => {
    // SSH credentials: a kind whose responses are made once per cached object (no derived field).
    const ids: string[] = [];
    for (const [d, file] of [
      ["a", "deploy_ed25519.pub"],
      ["b", "deploy_ecdsa.pub"],
      ["c", "deploy_rsa.pub"],
    ] as const) {
      ids.push((await call("POST", "/ssh_credentials", { description: d, public_key: key(file) })).body.id);
    }
    const descriptions = (a: Answer) =>
      a.body.ssh_credentials.map((p: { description: string }) => p.description);
    const first = await call("GET", "/ssh_credentials?limit=2");
    const again = await call("GET", "/ssh_credentials?limit=2");
    expect(again.text).toBe(first.text);
    expect(first.text).toBe(JSON.stringify(first.body));
    expect(first.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(descriptions(first)).toEqual(["c", "b"]);
    expect(first.body.next_page_uri).toBe(`${server.url}/ssh_credentials?before_id=${ids[1]}&limit=2`);

    const patched = await call("PATCH", `/ssh_credentials/${ids[2]}`, { description: "c changed" });
    expect(patched.status, patched.text).toBe(200);
    expect(descriptions(await call("GET", "/ssh_credentials?limit=2"))).toEqual(["c changed", "b"]);
    expect((await call("GET", `/ssh_credentials/${ids[2]}`)).body.description).toBe("c changed");

    expect((await call("DELETE", `/ssh_credentials/${ids[1]}`)).status).toBe(204);
    const after = await call("GET", "/ssh_credentials");
    expect(after.body.ssh_credentials.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[0]]);
    expect(after.text).toBe(JSON.stringify(after.body));
  });

  it("of API keys are made once too, with their token null, and follow a change", async () => {
    // API keys: a `present` hook that reads the object alone (token: null) lets them be kept.
    const created = await call("POST", "/api_keys", { description: "kept" });
    expect(created.body.token).toMatch(/^tgw_/);
    const first = await call("GET", `/api_keys/${created.body.id}`);
    const again = await call("GET", `/api_keys/${created.body.id}`);
    expect(again.text).toBe(first.text);
    expect(first.body).toEqual({ ...created.body, token: null });
    const listed = await call("GET", "/api_keys?limit=1");
    expect(listed.body.keys).toEqual([first.body]);
    expect((await call("PATCH", `/api_keys/${created.body.id}`, { description: "changed" })).status).toBe(
      200,
    );
    const changed = await call("GET", `/api_keys/${created.body.id}`);
    expect(changed.body).toEqual({ ...created.body, description: "changed", token: null });
    expect((await call("GET", "/api_keys?limit=1")).body.keys).toEqual([changed.body]);
  });

  it("send a page read again as it is now: after a create, after a delete, in UTF-8", async () => {
    // IP policies: their pages are joined once and sent again while their objects stay the same.
    const texts = (a: Answer) => a.body.ip_policies.map((p: { description: string }) => p.description);
    const ids: string[] = [];
    for (const d of ["première", "2nd €", "third 😀"]) {
      ids.push((await call("POST", "/ip_policies", { description: d })).body.id);
    }
    const first = await call("GET", "/ip_policies?limit=3");
    const again = await call("GET", "/ip_policies?limit=3");
    expect(again.text).toBe(first.text);
    expect(first.text).toBe(JSON.stringify(first.body));
    expect(Number(first.headers.get("content-length"))).toBe(Buffer.byteLength(first.text));
    expect(texts(first)).toEqual(["third 😀", "2nd €", "première"]);

    const created = (await call("POST", "/ip_policies", { description: "fourth" })).body.id;
    expect(texts(await call("GET", "/ip_policies?limit=3"))).toEqual(["fourth", "third 😀", "2nd €"]);
    expect((await call("DELETE", `/ip_policies/${created}`)).status).toBe(204);
    const deleted = await call("GET", "/ip_policies?limit=3");
    expect(texts(deleted)).toEqual(["third 😀", "2nd €", "première"]);
    expect(deleted.text).toBe(first.text);
    // The same items under another envelope (a page of 2): its own uri and next page.
    const two = await call("GET", "/ip_policies?limit=2");
    expect(texts(two)).toEqual(["third 😀", "2nd €"]);
    expect(two.body.next_page_uri).toBe(`${server.url}/ip_policies?before_id=${ids[1]}&limit=2`);
  });
});
