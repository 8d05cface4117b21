/**
 * Accounts and roles (issue 12, item 7; docs/server.md > Accounts and roles).
 *
 * The isolation matrix: account A holds one object of every kind (fixtures, every API kind, every
 * module, an abuse report); an admin key of account B then tries every route of every kind on A's
 * ids (GET, PATCH, DELETE, PUT of modules, lists, `before_id`, references in fields): every one is a
 * 404 (or 400 for `before_id`) in the documented shape, no list shows A's objects, and A's objects are
 * all unchanged. Then the role rules inside one account.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allKinds, fillPath, type KindDescriptor } from "../../src/model/index.js";
import { createAccount } from "../../src/server/account.js";
import { type RunningServer, startServer } from "../../src/server/server.js";
import { EXAMPLE_FIXTURES } from "../helpers/server.js";
import { type Answer, type Caller, caller, errorMessage } from "./http.js";

const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

let server: RunningServer;
let adminA: Caller;
let adminB: Caller;
/** Module bodies A put, by kind. */
const moduleBodies = new Map<string, Record<string, unknown>>();
/** Ids of A's objects, by kind (collections). */
const idsOfA = new Map<string, string[]>();

const ROUTE = "/edges/https/edghts_example01/routes/edghtsrt_example01";
const params = { edge_id: "edghts_example01", route_id: "edghtsrt_example01" };

beforeAll(async () => {
  server = await startServer({
    fixtures: EXAMPLE_FIXTURES,
    bootstrapToken: "tgw_account_a",
    checkResponses: true,
  });
  adminA = caller(server.url, server.token);
  const b = createAccount(server.app.store);
  // B may use abuse reports too, so that A's report is a 404 for B and not a 403 of the flag.
  server.app.store.forAccount(b.accountId).setMeta("abuse_reports", "true");
  adminB = caller(server.url, b.token);

  const created = async (path: string, body: Record<string, unknown>) => {
    const answer = await adminA("POST", path, body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };
  const backend = await created("/backends/tunnel_group", { labels: { env: "prod" } });
  const destination = await created("/event_destinations", {
    format: "json",
    target: { monitoring_target: { api_key: "dd-key" } },
  });
  await created("/api_keys", { description: "a key of A" });
  await created("/reserved_addrs", { addr: "2.tcp.example.com:20002" });
  await created("/ssh_credentials", { public_key: key("deploy_ed25519.pub") });
  await created("/ssh_host_certificates", {
    ssh_certificate_authority_id: "sshca_example01",
    public_key: key("deploy_rsa.pub"),
  });
  await created("/tls_certificates", {
    certificate_pem: key("app.example.com.crt.pem"),
    private_key_pem: key("app.example.com.key.pem"),
  });
  await created("/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01"] });
  await created("/event_subscriptions", {
    sources: [{ type: "api_key_created.v0" }],
    destination_ids: [destination],
  });
  idsOfA.set("abuse_report", [await created("/abuse_reports", { urls: ["https://app.example.com/x"] })]);
  await created("/api_keys", { description: "emits an event to A's destination" });

  moduleBodies.set("saml", { idp_metadata: "<EntityDescriptor/>" });
  moduleBodies.set("oidc", { issuer: "https://id.example.com", client_id: "c", client_secret: "s3cret" });
  moduleBodies.set("response_headers", { add: { "x-a": "1" } });
  moduleBodies.set("user_agent_filter", { deny: ["badbot"] });
  moduleBodies.set("compression", {});
  moduleBodies.set("https_edge_mutual_tls", { certificate_authority_ids: ["ca_example01"] });
  moduleBodies.set("tls_edge_mutual_tls", { certificate_authority_ids: ["ca_example01"] });
  moduleBodies.set("tls_edge_backend", { backend_id: backend });
  moduleBodies.set("tcp_edge_backend", { backend_id: backend });
  for (const kind of allKinds().values()) {
    if (kind.module === undefined) continue;
    const answer = await adminA("PUT", modulePath(kind), moduleBodies.get(kind.kind) ?? {});
    expect(answer.status, `${kind.kind}: ${answer.text}`).toBe(200);
  }
  for (const kind of collections()) {
    if (!kind.operations.has("list")) continue;
    const list = await adminA("GET", `${collectionPath(kind)}?limit=100`);
    idsOfA.set(
      kind.kind,
      (list.body[kind.listKey ?? ""] as { id: string }[]).map((o) => o.id),
    );
  }
});
afterAll(() => server.close());

function collections(): KindDescriptor[] {
  return [...allKinds().values()].filter((k) => k.module === undefined);
}
function collectionPath(kind: KindDescriptor): string {
  return fillPath(kind.path, params);
}
const EDGE_OF: Record<string, string> = {
  https_edge: "edghts_example01",
  https_edge_route: "edghts_example01",
  tls_edge: "edgtls_example01",
  tcp_edge: "edgtcp_example01",
};
function modulePath(kind: KindDescriptor): string {
  return fillPath(kind.path, { ...params, edge_id: EDGE_OF[kind.module?.parent ?? ""] ?? "" });
}

/** A's whole visible state: every list and every module, to compare before and after. */
async function snapshotOfA(): Promise<string> {
  const parts: unknown[] = [];
  for (const kind of allKinds().values()) {
    if (kind.module !== undefined) parts.push((await adminA("GET", modulePath(kind))).body);
    else if (kind.operations.has("list"))
      parts.push((await adminA("GET", `${collectionPath(kind)}?limit=100`)).body);
  }
  return JSON.stringify(parts);
}

describe("nothing crosses accounts", () => {
  it("every route of every kind answers 404 for another account's ids, and changes nothing", async () => {
    const before = await snapshotOfA();
    let checks = 0;
    const expectNotFound = async (answer: Answer, status = 404) => {
      errorMessage(answer, status);
      checks++;
    };
    for (const kind of allKinds().values()) {
      if (kind.module !== undefined) {
        const path = modulePath(kind);
        await expectNotFound(await adminB("GET", path));
        await expectNotFound(await adminB("PUT", path, moduleBodies.get(kind.kind) ?? {}));
        await expectNotFound(await adminB("DELETE", path));
        continue;
      }
      const ids = idsOfA.get(kind.kind) ?? [];
      expect(ids.length, `account A has no ${kind.kind}`).toBeGreaterThan(0);
      const base = collectionPath(kind);
      if (kind.operations.has("list")) {
        const list = await adminB("GET", `${base}?limit=100`);
        // A nested list (routes of A's edge) is itself a 404: the edge is not B's.
        if (kind.parent === undefined) {
          const shown = (list.body[kind.listKey ?? ""] as { id: string }[]).map((o) => o.id);
          expect(
            shown.filter((id) => ids.includes(id)),
            `${kind.kind} list`,
          ).toEqual([]);
          await expectNotFound(await adminB("GET", `${base}?before_id=${ids[0]}`), 400);
        } else {
          await expectNotFound(list);
        }
      }
      for (const id of ids) {
        if (kind.operations.has("get")) await expectNotFound(await adminB("GET", `${base}/${id}`));
        if (kind.operations.has("update")) await expectNotFound(await adminB("PATCH", `${base}/${id}`, {}));
        if (kind.operations.has("delete")) await expectNotFound(await adminB("DELETE", `${base}/${id}`));
      }
    }
    // References to A's objects in B's requests.
    await expectNotFound(
      await adminB("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01"] }),
    );
    await expectNotFound(
      await adminB("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_rsa.pub"),
      }),
    );
    await expectNotFound(
      await adminB("POST", "/event_subscriptions", {
        sources: [{ type: "api_key_created.v0" }],
        destination_ids: idsOfA.get("event_destination") ?? [],
      }),
    );
    await expectNotFound(await adminB("POST", "/api_keys", { owner_id: "usr_example01" }));
    expect(await snapshotOfA()).toBe(before);
    console.log(
      `account isolation: ${checks} cross-account requests, every one 404/400, account A unchanged`,
    );
  });

  it("B's debug endpoints show B's own requests and deliveries only", async () => {
    const requests = (await adminB("GET", "/debug/requests")).body.requests as {
      method: string;
      path: string;
    }[];
    expect(requests.some((r) => r.path === "/abuse_reports")).toBe(false);
    expect((await adminB("GET", "/debug/event_deliveries")).body.event_deliveries).toEqual([]);
    expect((await adminA("GET", "/debug/event_deliveries")).body.event_deliveries.length).toBeGreaterThan(0);
  });

  it("B works in its own account, unseen by A", async () => {
    const mine = await adminB("POST", "/backends/tunnel_group", { description: "B's" });
    expect(mine.status).toBe(201);
    errorMessage(await adminA("GET", `/backends/tunnel_group/${mine.body.id}`), 404);
    errorMessage(await adminA("DELETE", `/backends/tunnel_group/${mine.body.id}`), 404);
    expect((await adminB("GET", `/backends/tunnel_group/${mine.body.id}`)).status).toBe(200);
  });
});

describe("roles within an account", () => {
  let user: Caller;
  let bot: Caller;
  beforeAll(async () => {
    user = caller(server.url, (await adminA("POST", "/api_keys", { owner_id: "usr_example01" })).body.token);
    bot = caller(server.url, (await adminA("POST", "/api_keys", { owner_id: "bot_example01" })).body.token);
  });

  it("a non-admin key reads the whole account", async () => {
    const keys = await user("GET", "/api_keys");
    expect(keys.status).toBe(200);
    expect(keys.body.keys.length).toBeGreaterThan(2);
  });

  it("a non-admin key never changes or deletes an admin's key", async () => {
    const adminKeys = (await adminA("GET", "/api_keys")).body.keys.filter(
      (k: { owner_id: string }) => k.owner_id === "usr_admin",
    );
    expect(adminKeys.length).toBeGreaterThan(0);
    for (const k of adminKeys) {
      expect(errorMessage(await user("DELETE", `/api_keys/${k.id}`), 403)).toContain(
        "belongs to someone else",
      );
      errorMessage(await user("PATCH", `/api_keys/${k.id}`, { description: "mine now" }), 403);
    }
    expect((await adminA("GET", "/api_keys")).body.keys.length).toBeGreaterThanOrEqual(adminKeys.length);
  });

  it("a non-admin key changes and deletes what it owns, not what others own nor fixtures", async () => {
    const own = await user("POST", "/backends/tunnel_group", { description: "the user's" });
    expect(own.status).toBe(201);
    errorMessage(await bot("PATCH", `/backends/tunnel_group/${own.body.id}`, { description: "bot's" }), 403);
    errorMessage(await bot("DELETE", `/backends/tunnel_group/${own.body.id}`), 403);
    expect(
      (await user("PATCH", `/backends/tunnel_group/${own.body.id}`, { description: "still mine" })).status,
    ).toBe(200);
    expect((await user("DELETE", `/backends/tunnel_group/${own.body.id}`)).status).toBe(204);
    errorMessage(await user("DELETE", "/edges/tls/edgtls_example01"), 403);
    const ownKey = await user("POST", "/api_keys", { description: "the user's second key" });
    expect((await user("DELETE", `/api_keys/${ownKey.body.id}`)).status).toBe(204);
  });

  it("modules: a non-admin key puts or deletes modules only under an edge it owns", async () => {
    errorMessage(await user("PUT", `${ROUTE}/saml`, moduleBodies.get("saml")), 403);
    errorMessage(await user("DELETE", `${ROUTE}/compression`), 403);
    // A fixture route belongs to nobody: not even a first PUT (issue 31 §4; every module in
    // module-authorization.test.ts).
    const route2 = "/edges/https/edghts_example01/routes/edghtsrt_example02";
    errorMessage(await user("PUT", `${route2}/compression`, {}), 403);
    const edge = await user("POST", "/edges/https", { hostports: ["user.example.com:443"] });
    const route = await user("POST", `/edges/https/${edge.body.id}/routes`, {
      match_type: "path_prefix",
      match: "/",
    });
    expect(route.status, route.text).toBe(201);
    const own = `/edges/https/${edge.body.id}/routes/${route.body.id}`;
    expect((await user("PUT", `${own}/compression`, {})).status).toBe(200);
    errorMessage(await bot("DELETE", `${own}/compression`), 403);
    expect((await user("DELETE", `${own}/compression`)).status).toBe(204);
  });

  it("an admin key manages everything of its account", async () => {
    const own = await user("POST", "/backends/tunnel_group", { description: "the user's" });
    expect((await adminA("DELETE", `/backends/tunnel_group/${own.body.id}`)).status).toBe(204);
  });
});
