/**
 * Every operation of docs/api.md (and the referenced objects' minimal operations of docs/design.md section
 * 5) over HTTP: success status, body valid against `$defs.response`, id prefix, `uri` resolvable by
 * GET, list envelope, PATCH applied, DELETE then 404.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allKinds, getKind, moduleKinds } from "../../src/model/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Caller, caller, errorMessage, responseProblems } from "./http.js";

const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

let server: TestServer;
let call: Caller;
let destinationId: string;

beforeAll(async () => {
  server = await startTestServer();
  call = caller(server.url, server.token);
  const ed = await call("POST", "/event_destinations", {
    format: "json",
    target: { monitoring_target: { api_key: "dd-key" } },
  });
  destinationId = ed.body.id;
});
afterAll(() => server.close());

interface Case {
  kind: string;
  /** Collection path (nested collections filled in). */
  path: string;
  create: () => Record<string, unknown>;
  patch?: Record<string, unknown>;
}

const cases: Case[] = [
  {
    kind: "api_key",
    path: "/api_keys",
    create: () => ({ description: "ci", metadata: '{"team":"a"}' }),
    patch: { description: "ci 2" },
  },
  {
    kind: "ssh_credential",
    path: "/ssh_credentials",
    create: () => ({ public_key: key("deploy_ed25519.pub"), acl: ["bind:*.example.com", "bind:env=prod"] }),
    patch: { acl: ["*"] },
  },
  {
    kind: "ssh_host_certificate",
    path: "/ssh_host_certificates",
    create: () => ({
      ssh_certificate_authority_id: "sshca_example01",
      public_key: key("deploy_rsa.pub"),
      principals: ["host.example.com"],
    }),
    patch: { description: "web hosts" },
  },
  {
    kind: "tunnel_group_backend",
    path: "/backends/tunnel_group",
    create: () => ({ labels: { env: "prod" } }),
    patch: { labels: { env: "staging" } },
  },
  {
    kind: "tls_certificate",
    path: "/tls_certificates",
    create: () => ({
      certificate_pem: key("app.example.com.crt.pem"),
      private_key_pem: key("app.example.com.key.pem"),
    }),
    patch: { metadata: "m" },
  },
  {
    kind: "ip_restriction",
    path: "/ip_restrictions",
    create: () => ({ type: "api", ip_policy_ids: ["ipp_example01"] }),
    patch: { enforced: true, ip_policy_ids: ["ipp_example01", "ipp_example02"] },
  },
  {
    kind: "event_destination",
    path: "/event_destinations",
    create: () => ({
      format: "json",
      target: {
        log_group_target: {
          auth: { role: { role_arn: "arn:aws:iam::1:role/r" } },
          log_group_arn: "arn:aws:logs:x",
        },
      },
    }),
    patch: {
      target: {
        stream_target: {
          auth: { creds: { cloud_access_key_id: "AK", cloud_secret_access_key: "SK" } },
          stream_arn: "arn:aws:kinesis:x",
        },
      },
    },
  },
  {
    kind: "event_subscription",
    path: "/event_subscriptions",
    create: () => ({ sources: [{ type: "ip_policy_created.v0" }], destination_ids: [destinationId] }),
    patch: { description: "policies", sources: [{ type: "ip_policy_deleted.v0" }] },
  },
  { kind: "https_edge", path: "/edges/https", create: () => ({ hostports: ["new.example.com:443"] }) },
  {
    kind: "https_edge_route",
    path: "/edges/https/edghts_example01/routes",
    create: () => ({ match_type: "exact_path", match: "/x" }),
  },
  { kind: "tls_edge", path: "/edges/tls", create: () => ({ hostports: ["t.example.com:443"] }) },
  { kind: "tcp_edge", path: "/edges/tcp", create: () => ({ hostports: ["2.tcp.example.com:20002"] }) },
  {
    kind: "certificate_authority",
    path: "/certificate_authorities",
    create: () => ({ ca_pem: key("ca.pem") }),
  },
  {
    kind: "ssh_certificate_authority",
    path: "/ssh_certificate_authorities",
    create: () => ({ description: "hosts" }),
  },
  { kind: "ip_policy", path: "/ip_policies", create: () => ({ description: "office" }) },
  { kind: "reserved_domain", path: "/reserved_domains", create: () => ({ domain: "other.example.com" }) },
  { kind: "reserved_addr", path: "/reserved_addrs", create: () => ({ addr: "3.tcp.example.com:20003" }) },
  {
    kind: "tunnel",
    path: "/tunnels",
    create: () => ({ labels: { a: "b" }, public_url: "https://t.example.com", proto: "https" }),
  },
  { kind: "user", path: "/users", create: () => ({ description: "someone" }) },
  { kind: "bot", path: "/bots", create: () => ({ description: "robot" }) },
];

describe("collections", () => {
  test("the table covers every kind with a create and a list", () => {
    const expected = [...allKinds().values()]
      .filter((k) => k.operations.has("create") && k.operations.has("list"))
      .map((k) => k.kind);
    expect(cases.map((c) => c.kind).sort()).toEqual(expected.sort());
  });

  for (const c of cases) {
    test(`${c.kind}: create, get, list, ${c.patch ? "update, " : ""}delete`, async () => {
      const kind = getKind(c.kind);
      const created = await call("POST", c.path, c.create());
      expect(created.status, created.text).toBe(201);
      expect(responseProblems(c.kind, created.body)).toEqual([]);
      expect(created.body.id).toMatch(new RegExp(`^${kind.idPrefix}[A-Za-z0-9]+$`));
      expect(created.body.uri).toBe(`${server.url}${c.path}/${created.body.id}`);

      const got = await call("GET", created.body.uri);
      expect(got.status).toBe(200);
      expect(responseProblems(c.kind, got.body)).toEqual([]);
      const { token: _t, tunnels: _tn, ...rest } = created.body;
      expect(got.body).toMatchObject(rest);

      const list = await call("GET", c.path);
      expect(list.status).toBe(200);
      expect(Object.keys(list.body).sort()).toEqual([kind.listKey, "next_page_uri", "uri"].sort());
      expect(list.body.uri).toBe(`${server.url}${c.path}`);
      expect(list.body.next_page_uri).toBeNull();
      expect(list.body[kind.listKey ?? ""][0]).toEqual(got.body);

      if (c.patch) {
        const patched = await call("PATCH", `${c.path}/${created.body.id}`, c.patch);
        expect(patched.status, patched.text).toBe(200);
        expect(responseProblems(c.kind, patched.body)).toEqual([]);
        const again = await call("GET", created.body.uri);
        expect(again.body).toEqual(patched.body);
        expect(again.body).not.toEqual(got.body);
      } else {
        const patched = await call("PATCH", `${c.path}/${created.body.id}`, { description: "x" });
        expect(errorMessage(patched, 405)).toContain("PATCH");
        expect(patched.headers.get("allow")).toContain("DELETE");
      }

      const deleted = await call("DELETE", `${c.path}/${created.body.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expect(errorMessage(await call("GET", created.body.uri), 404)).toContain(created.body.id);
    });
  }

  test("IP restriction update changes enforced and policies but not type", async () => {
    const created = await call("POST", "/ip_restrictions", {
      type: "dashboard",
      ip_policy_ids: ["ipp_example01"],
    });
    expect(created.body.enforced).toBe(false);
    const patched = await call("PATCH", `/ip_restrictions/${created.body.id}`, {
      enforced: true,
      ip_policy_ids: ["ipp_example02"],
    });
    expect(patched.body).toMatchObject({
      type: "dashboard",
      enforced: true,
      ip_policies: [{ id: "ipp_example02", uri: `${server.url}/ip_policies/ipp_example02` }],
    });
    const refused = await call("PATCH", `/ip_restrictions/${created.body.id}`, { type: "api" });
    expect(errorMessage(refused, 400)).toBe('unknown field "type"');
  });

  test("event destination responses show the unused members as null", async () => {
    const created = await call("POST", "/event_destinations", {
      format: "json",
      target: {
        delivery_stream_target: {
          auth: { creds: { cloud_access_key_id: "A", cloud_secret_access_key: "S" } },
          delivery_stream_arn: "arn:x",
        },
      },
    });
    expect(created.body.target).toEqual({
      delivery_stream_target: {
        auth: { role: null, creds: { cloud_access_key_id: "A", cloud_secret_access_key: "S" } },
        delivery_stream_arn: "arn:x",
      },
      stream_target: null,
      log_group_target: null,
      monitoring_target: null,
    });
    const patched = await call("PATCH", `/event_destinations/${created.body.id}`, { description: "d" });
    expect(patched.status).toBe(200);
    expect(patched.body.target).toEqual(created.body.target);
  });

  test("event subscription sources carry their uri and destinations are refs", async () => {
    const created = await call("POST", "/event_subscriptions", {
      sources: [{ type: "api_key_created.v0" }, { type: "api_key_deleted.v0" }],
      destination_ids: [destinationId],
    });
    const uri = created.body.uri;
    expect(created.body.sources).toEqual([
      { type: "api_key_created.v0", uri: `${uri}/sources/api_key_created.v0` },
      { type: "api_key_deleted.v0", uri: `${uri}/sources/api_key_deleted.v0` },
    ]);
    expect(created.body.destinations).toEqual([
      { id: destinationId, uri: `${server.url}/event_destinations/${destinationId}` },
    ]);
  });

  test("a tunnel group backend is empty when created and lists matching tunnels afterwards", async () => {
    const created = await call("POST", "/backends/tunnel_group", { labels: { env: "prod", app: "web" } });
    expect(created.body.tunnels).toEqual([]);
    const got = await call("GET", created.body.uri);
    expect(got.body.tunnels).toEqual([{ id: "tn_example01", uri: `${server.url}/tunnels/tn_example01` }]);
    const other = await call("POST", "/backends/tunnel_group", { labels: { env: "dev" } });
    expect((await call("GET", other.body.uri)).body.tunnels).toEqual([]);
  });

  test("deleting an edge deletes its routes and their modules", async () => {
    const edge = await call("POST", "/edges/https", { hostports: ["gone.example.com:443"] });
    const route = await call("POST", `/edges/https/${edge.body.id}/routes`, {
      match_type: "path_prefix",
      match: "/",
    });
    expect(route.body.edge_id).toBe(edge.body.id);
    const put = await call("PUT", `/edges/https/${edge.body.id}/routes/${route.body.id}/compression`, {});
    expect(put.status).toBe(200);
    expect((await call("DELETE", edge.body.uri)).status).toBe(204);
    expect((await call("GET", route.body.uri)).status).toBe(404);
    expect(
      (await call("GET", `/edges/https/${edge.body.id}/routes/${route.body.id}/compression`)).status,
    ).toBe(404);
  });
});

describe("abuse reports", () => {
  test("create and get; no list, update or delete", async () => {
    const created = await call("POST", "/abuse_reports", { urls: ["https://phish.app.example.com/login"] });
    expect(created.status).toBe(201);
    expect(responseProblems("abuse_report", created.body)).toEqual([]);
    expect(created.body.id).toMatch(/^abrp_/);
    const got = await call("GET", created.body.uri);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    expect(errorMessage(await call("GET", "/abuse_reports"), 405)).toContain("allowed: POST");
    expect((await call("DELETE", created.body.uri)).status).toBe(405);
  });
});

describe("endpoints", () => {
  test("list and get are read-only", async () => {
    const list = await call("GET", "/endpoints");
    expect(list.status).toBe(200);
    expect(list.body.endpoints.length).toBeGreaterThan(0);
    for (const ep of list.body.endpoints) {
      expect(responseProblems("endpoint", ep)).toEqual([]);
      expect(ep.id).toMatch(/^ep_/);
      const got = await call("GET", ep.uri);
      expect(got.body).toEqual(ep);
    }
    expect((await call("POST", "/endpoints", {})).status).toBe(405);
    expect((await call("DELETE", list.body.endpoints[0].uri)).status).toBe(405);
  });
});

const moduleBodies: Record<string, Record<string, unknown>> = {
  saml: { idp_metadata: key("idp-metadata.xml") },
  oidc: {
    issuer: "https://accounts.example.com",
    client_id: "cid",
    client_secret: "shh",
    scopes: ["openid"],
  },
  user_agent_filter: { allow: ["^curl/"], deny: ["bot"] },
  response_headers: { add: { "X-Frame-Options": "DENY" }, remove: ["Server"] },
  compression: { enabled: true },
  https_edge_mutual_tls: { certificate_authority_ids: ["ca_example01"] },
  tls_edge_mutual_tls: { certificate_authority_ids: ["ca_example01", "ca_example02"] },
  tls_edge_backend: { backend_id: "" },
  tcp_edge_backend: { backend_id: "" },
};

describe("modules", () => {
  const params = { edge_id: "", route_id: "edghtsrt_example01" };
  for (const kind of moduleKinds()) {
    test(`${kind.kind}: PUT, GET, DELETE`, async () => {
      const edge = {
        https_edge_route: "edghts_example01",
        https_edge: "edghts_example01",
        tls_edge: "edgtls_example01",
        tcp_edge: "edgtcp_example01",
      }[kind.module?.parent ?? "https_edge"];
      const path = kind.path.replace("{edge_id}", edge).replace("{route_id}", params.route_id);
      const body = { ...moduleBodies[kind.kind] };
      if ("backend_id" in body)
        body.backend_id = (await call("POST", "/backends/tunnel_group", { labels: { a: "b" } })).body.id;

      errorMessage(await call("GET", path), 404);
      const put = await call("PUT", path, body);
      expect(put.status, put.text).toBe(200);
      expect(responseProblems(kind.kind, put.body)).toEqual([]);
      expect(put.body.enabled).toBe(true);
      const got = await call("GET", path);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(put.body);
      const off = await call("PUT", path, { ...body, enabled: false });
      expect(off.body.enabled).toBe(false);
      expect((await call("DELETE", path)).status).toBe(204);
      errorMessage(await call("GET", path), 404);
      errorMessage(await call("DELETE", path), 404);
      expect((await call("POST", path, body)).status).toBe(405);
    });
  }
});
