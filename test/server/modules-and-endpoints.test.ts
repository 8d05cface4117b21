/**
 * What modules and endpoints add to the generic behaviour: SAML read-only fields and a real signing
 * certificate kept across PUTs; defaults; OIDC's client secret returned; header names lower-cased;
 * backends and CAs as Refs; endpoints derived from tunnels and edges with stable ids.
 */
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Caller, caller, errorMessage } from "./http.js";

let server: TestServer;
let call: Caller;
const route = "/edges/https/edghts_example01/routes/edghtsrt_example01";

beforeAll(async () => {
  server = await startTestServer();
  call = caller(server.url, server.token);
});
afterAll(() => server.close());

describe("SAML", () => {
  test("defaults, read-only URLs and a real signing certificate kept across PUTs", async () => {
    const put = await call("PUT", `${route}/saml`, { idp_metadata: "<EntityDescriptor/>" });
    expect(put.status, put.text).toBe(200);
    const base = `${server.url}/saml/edghtsrt_example01`;
    expect(put.body).toMatchObject({
      enabled: true,
      options_passthrough: false,
      cookie_prefix: "tgw.",
      inactivity_timeout: 43200,
      maximum_duration: 86400,
      force_authn: false,
      allow_idp_initiated: false,
      authorized_groups: [],
      nameid_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      idp_metadata_url: "",
      metadata_url: `${base}/metadata`,
      entity_id: `${base}/metadata`,
      assertion_consumer_service_url: `${base}/acs`,
      single_logout_url: `${base}/slo`,
    });
    const cert = new X509Certificate(put.body.request_signing_certificate_pem);
    expect(cert.subject).toContain("edghtsrt_example01");
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(put.text).not.toContain("PRIVATE KEY");

    const again = await call("PUT", `${route}/saml`, {
      idp_metadata: "<EntityDescriptor/>",
      nameid_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      authorized_groups: ["admins"],
    });
    expect(again.body.request_signing_certificate_pem).toBe(put.body.request_signing_certificate_pem);
    expect(again.body.authorized_groups).toEqual(["admins"]);
    // PUT replaces: a field left out goes back to its default.
    const third = await call("PUT", `${route}/saml`, { idp_metadata: "<EntityDescriptor/>" });
    expect(third.body.authorized_groups).toEqual([]);

    await call("DELETE", `${route}/saml`);
    const fresh = await call("PUT", `${route}/saml`, { idp_metadata: "<EntityDescriptor/>" });
    expect(fresh.body.request_signing_certificate_pem).not.toBe(put.body.request_signing_certificate_pem);
  });
});

test("concurrent first PUTs of a module all succeed, and one of them wins whole", async () => {
  const path = "/edges/https/edghts_example01/routes/edghtsrt_example02/saml";
  const answers = await Promise.all(
    [1, 2, 3, 4, 5].map((n) =>
      call("PUT", path, { idp_metadata: "<EntityDescriptor/>", maximum_duration: n }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  const final = await call("GET", path);
  expect([1, 2, 3, 4, 5]).toContain(final.body.maximum_duration);
  expect(answers.map((a) => a.body.maximum_duration)).toContain(final.body.maximum_duration);
});

describe("other modules", () => {
  test("OIDC returns its client secret", async () => {
    const put = await call("PUT", `${route}/oidc`, {
      issuer: "https://id.example.com",
      client_id: "c",
      client_secret: "s3cret",
    });
    expect(put.body).toMatchObject({ client_secret: "s3cret", scopes: [], cookie_prefix: "tgw." });
  });
  test("response header names come back lower-cased", async () => {
    const put = await call("PUT", `${route}/response_headers`, {
      add: { "X-Frame-Options": "DENY", "Content-Security-Policy": "default-src 'self'" },
      remove: ["Server", "X-Powered-By"],
    });
    expect(put.body).toEqual({
      enabled: true,
      add: { "x-frame-options": "DENY", "content-security-policy": "default-src 'self'" },
      remove: ["server", "x-powered-by"],
    });
  });
  test("user agent filter keeps its patterns; defaults are empty lists", async () => {
    const put = await call("PUT", `${route}/user_agent_filter`, { deny: ["(?:bad|evil)bot"] });
    expect(put.body).toEqual({ enabled: true, allow: [], deny: ["(?:bad|evil)bot"] });
  });
  test("backend and mutual TLS modules answer with Refs", async () => {
    const backend = await call("POST", "/backends/tunnel_group", { labels: { app: "web" } });
    const put = await call("PUT", "/edges/tls/edgtls_example01/backend", { backend_id: backend.body.id });
    expect(put.body).toEqual({ enabled: true, backend: { id: backend.body.id, uri: backend.body.uri } });
    // The backend cannot be deleted while the module uses it.
    expect(errorMessage(await call("DELETE", backend.body.uri), 409)).toContain("edgtls_example01");
    const mtls = await call("PUT", "/edges/https/edghts_example01/mutual_tls", {});
    expect(mtls.body).toEqual({ enabled: true, certificate_authorities: [] });
  });
  test("a module on a route of another edge: 404", async () => {
    const edge = await call("POST", "/edges/https", { hostports: ["x.example.com:443"] });
    errorMessage(
      await call("PUT", `/edges/https/${edge.body.id}/routes/edghtsrt_example01/compression`, {}),
      404,
    );
    errorMessage(await call("GET", "/edges/tcp/edgtls_example01/backend"), 404);
  });
});

describe("endpoints", () => {
  test("derived from the fixtures' tunnel and edges, with refs", async () => {
    const list = (await call("GET", "/endpoints")).body.endpoints as Record<string, unknown>[];
    const byHost = Object.fromEntries(list.map((e) => [`${e.type} ${e.hostport}`, e]));
    expect(byHost["ephemeral app.example.com:443"]).toMatchObject({
      proto: "https",
      public_url: "https://app.example.com",
      tunnel: { id: "tn_example01", uri: `${server.url}/tunnels/tn_example01` },
      domain: { id: "rd_example01", uri: `${server.url}/reserved_domains/rd_example01` },
    });
    expect(byHost["edge app.example.com:443"]).toMatchObject({
      proto: "https",
      edge: { id: "edghts_example01" },
    });
    expect(byHost["edge tls.example.com:443"]).toMatchObject({
      proto: "tls",
      public_url: "tls://tls.example.com:443",
    });
    expect(byHost["edge 1.tcp.example.com:20001"]).toMatchObject({
      proto: "tcp",
      public_url: "tcp://1.tcp.example.com:20001",
    });
  });
  test("ids are stable, new edges add endpoints and deleted ones remove them", async () => {
    const before = (await call("GET", "/endpoints")).body.endpoints.map((e: { id: string }) => e.id);
    expect((await call("GET", "/endpoints")).body.endpoints.map((e: { id: string }) => e.id)).toEqual(before);
    const edge = await call("POST", "/edges/tcp", {
      hostports: ["5.tcp.example.com:1", "5.tcp.example.com:2"],
    });
    const during = (await call("GET", "/endpoints")).body.endpoints;
    expect(during.length).toBe(before.length + 2);
    expect(during[0].edge.id).toBe(edge.body.id);
    const page = await call("GET", "/endpoints?limit=1");
    expect(page.body.next_page_uri).toBe(`${server.url}/endpoints?before_id=${during[0].id}&limit=1`);
    expect((await call("GET", page.body.next_page_uri)).body.endpoints[0].id).toBe(during[1].id);
    await call("DELETE", edge.body.uri);
    expect((await call("GET", "/endpoints")).body.endpoints.map((e: { id: string }) => e.id)).toEqual(before);
    errorMessage(await call("GET", `/endpoints/${during[0].id}`), 404);
  });
});
