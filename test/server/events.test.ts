/**
 * Events (docs/design.md section 5 > Events): every create/update/delete of every kind (modules and
 * referenced objects included) emits `<kind>_<action>.v0`, delivered to the destinations of the
 * subscriptions whose sources name the type, recorded and readable at `GET /debug/event_deliveries`
 * with the documented payload.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Caller, caller } from "./http.js";

let server: TestServer;
let call: Caller;
let destinations: string[];

interface Delivery {
  event_id: string;
  event_type: string;
  subscription_id: string;
  destination_id: string;
  delivered_at: string;
  payload: {
    event_id: string;
    event_type: string;
    event_timestamp: string;
    account_id: string;
    object: Record<string, unknown>;
    principal: { id: string; source: string };
  };
}

async function deliveries(query = ""): Promise<Delivery[]> {
  const res = await call("GET", `/debug/event_deliveries${query}`, undefined, {
    "service-version": undefined,
  });
  expect(res.status).toBe(200);
  return res.body.event_deliveries;
}

beforeAll(async () => {
  server = await startTestServer();
  call = caller(server.url, server.token);
  destinations = [];
  for (const api_key of ["k1", "k2"]) {
    destinations.push(
      (
        await call("POST", "/event_destinations", {
          format: "json",
          target: { monitoring_target: { api_key } },
        })
      ).body.id,
    );
  }
  const types = [
    "api_key_created.v0",
    "api_key_updated.v0",
    "api_key_deleted.v0",
    "ip_policy_created.v0",
    "saml_created.v0",
    "saml_updated.v0",
    "saml_deleted.v0",
  ];
  await call("POST", "/event_subscriptions", {
    sources: types.map((type) => ({ type })),
    destination_ids: [destinations[0]],
  });
  await call("POST", "/event_subscriptions", {
    sources: [{ type: "api_key_created.v0" }],
    destination_ids: destinations,
  });
});
afterAll(() => server.close());

test("an API key's life: created, updated, deleted, with the payload of docs/design.md", async () => {
  const created = await call("POST", "/api_keys", { description: "watched" });
  await call("PATCH", created.body.uri, { description: "watched 2" });
  await call("DELETE", created.body.uri);
  const mine = (await deliveries()).filter((d) => d.payload.object.id === created.body.id);
  expect(mine.map((d) => `${d.event_type} -> ${d.destination_id}`)).toEqual([
    `api_key_created.v0 -> ${destinations[0]}`,
    `api_key_created.v0 -> ${destinations[0]}`,
    `api_key_created.v0 -> ${destinations[1]}`,
    `api_key_updated.v0 -> ${destinations[0]}`,
    `api_key_deleted.v0 -> ${destinations[0]}`,
  ]);
  const first = mine[0];
  expect(first?.payload).toEqual({
    event_id: first?.event_id,
    event_type: "api_key_created.v0",
    event_timestamp: first?.delivered_at,
    account_id: "acct_example01",
    object: { ...created.body, token: null },
    principal: { id: "usr_admin", source: "API" },
  });
  expect(first?.event_id).toMatch(/^ev_/);
  // The same event, delivered twice, has one id.
  expect(new Set(mine.slice(0, 3).map((d) => d.event_id)).size).toBe(1);
  expect(mine[3]?.payload.object.description).toBe("watched 2");
  expect(mine[4]?.payload.object.description).toBe("watched 2");
  expect(JSON.stringify(mine)).not.toContain(created.body.token);
});

test("referenced objects and modules emit events too", async () => {
  const policy = await call("POST", "/ip_policies", { description: "new office" });
  const path = "/edges/https/edghts_example01/routes/edghtsrt_example02/saml";
  await call("PUT", path, { idp_metadata: "<EntityDescriptor/>" });
  await call("PUT", path, { idp_metadata: "<EntityDescriptor/>", force_authn: true });
  await call("DELETE", path);
  const got = await deliveries(`?destination_id=${destinations[0]}`);
  expect(got.find((d) => d.event_type === "ip_policy_created.v0")?.payload.object).toEqual(policy.body);
  const saml = got.filter((d) => d.event_type.startsWith("saml_"));
  expect(saml.map((d) => d.event_type)).toEqual(["saml_created.v0", "saml_updated.v0", "saml_deleted.v0"]);
  expect(saml[1]?.payload.object.force_authn).toBe(true);
});

test("events of types no subscription names are not delivered", async () => {
  const before = (await deliveries()).length;
  await call("POST", "/tunnels", { public_url: "https://q.example.com" });
  await call("POST", "/backends/tunnel_group", {});
  expect((await deliveries()).length).toBe(before);
});

test("filters by event type", async () => {
  const only = await deliveries("?event_type=ip_policy_created.v0");
  expect(only.length).toBeGreaterThan(0);
  expect(only.every((d) => d.event_type === "ip_policy_created.v0")).toBe(true);
});

test("a subscription created, changed or deleted counts from the next write on", async () => {
  // The subscriptions of a write are read from the store's cache: each change must reach it at once.
  const count = async (type: string) => (await deliveries(`?event_type=${type}`)).length;
  const tunnels = await count("tunnel_created.v0");
  await call("POST", "/tunnels", { public_url: "https://before.example.com" });
  expect(await count("tunnel_created.v0")).toBe(tunnels);
  const sub = await call("POST", "/event_subscriptions", {
    sources: [{ type: "tunnel_created.v0" }],
    destination_ids: [destinations[1]],
  });
  expect(sub.status, sub.text).toBe(201);
  await call("POST", "/tunnels", { public_url: "https://created.example.com" });
  expect(await count("tunnel_created.v0")).toBe(tunnels + 1);
  const changed = await call("PATCH", sub.body.uri, { sources: [{ type: "bot_created.v0" }] });
  expect(changed.status, changed.text).toBe(200);
  const bots = await count("bot_created.v0");
  await call("POST", "/tunnels", { public_url: "https://changed.example.com" });
  await call("POST", "/bots", {});
  expect(await count("tunnel_created.v0")).toBe(tunnels + 1);
  expect(await count("bot_created.v0")).toBe(bots + 1);
  expect((await call("DELETE", sub.body.uri)).status).toBe(204);
  await call("POST", "/bots", {});
  expect(await count("bot_created.v0")).toBe(bots + 1);
});
