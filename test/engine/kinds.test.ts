/**
 * Every kind and module against the reference server: created, updated in place, replaced, deleted,
 * each with the exact calls the server received; every step ends with "apply again: no calls".
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChanges } from "../../src/engine/index.js";
import type { DesiredResource } from "../../src/model/desired.js";
import { res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");
const R1 = "edges.https.edghts_example01.routes.edghtsrt_example01";
const R2 = "edges.https.edghts_example01.routes.edghtsrt_example02";
const IDP = key("idp-metadata.xml");

interface Row {
  name: string;
  create: DesiredResource[];
  createCalls: string[];
  update: DesiredResource[];
  updateCalls: string[];
  replace?: DesiredResource[];
  replaceCalls?: string[];
  deleteCalls: string[];
  /** Resources that stay when the row's object is deleted (its reference targets). */
  keep?: DesiredResource[];
}

const backend = res("tunnel_group_backends.b", { labels: { app: "web" } });

const rows: Row[] = [
  {
    name: "api_key",
    create: [res("api_keys.k", { description: "one" })],
    createCalls: ["POST /api_keys"],
    update: [res("api_keys.k", { description: "two" })],
    updateCalls: ["PATCH /api_keys/:id"],
    replace: [res("api_keys.k", { description: "two", owner_id: "bot_example01" })],
    replaceCalls: ["DELETE /api_keys/:id", "POST /api_keys"],
    deleteCalls: ["DELETE /api_keys/:id"],
  },
  {
    name: "ssh_credential",
    create: [
      res("ssh_credentials.c", { public_key: key("deploy_ed25519.pub"), acl: ["bind:*.example.com"] }),
    ],
    createCalls: ["POST /ssh_credentials"],
    update: [
      res("ssh_credentials.c", {
        public_key: key("deploy_ed25519.pub"),
        acl: ["bind:a.example.com", "bind:env=prod"],
      }),
    ],
    updateCalls: ["PATCH /ssh_credentials/:id"],
    replace: [
      res("ssh_credentials.c", {
        public_key: key("deploy_ecdsa.pub"),
        acl: ["bind:a.example.com", "bind:env=prod"],
      }),
    ],
    replaceCalls: ["DELETE /ssh_credentials/:id", "POST /ssh_credentials"],
    deleteCalls: ["DELETE /ssh_credentials/:id"],
  },
  {
    name: "ssh_host_certificate",
    create: [
      res("ssh_host_certificates.h", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_ecdsa.pub"),
        principals: ["a.example.com"],
        valid_until: "2030-01-01T00:00:00Z",
      }),
    ],
    createCalls: ["POST /ssh_host_certificates"],
    update: [
      res("ssh_host_certificates.h", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_ecdsa.pub"),
        principals: ["a.example.com"],
        valid_until: "2030-01-01T00:00:00Z",
        description: "bastion",
      }),
    ],
    updateCalls: ["PATCH /ssh_host_certificates/:id"],
    replace: [
      res("ssh_host_certificates.h", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_ecdsa.pub"),
        principals: ["a.example.com", "b.example.com"],
        valid_until: "2030-01-01T00:00:00Z",
        description: "bastion",
      }),
    ],
    replaceCalls: ["DELETE /ssh_host_certificates/:id", "POST /ssh_host_certificates"],
    deleteCalls: ["DELETE /ssh_host_certificates/:id"],
  },
  {
    name: "tunnel_group_backend",
    create: [res("tunnel_group_backends.t", { labels: { app: "web" } })],
    createCalls: ["POST /backends/tunnel_group"],
    update: [
      res("tunnel_group_backends.t", { labels: { app: "web", env: "prod" }, metadata: { team: "web" } }),
    ],
    updateCalls: ["PATCH /backends/tunnel_group/:id"],
    deleteCalls: ["DELETE /backends/tunnel_group/:id"],
  },
  {
    name: "tls_certificate",
    create: [
      res("tls_certificates.c", {
        certificate_pem: key("app.example.com.crt.pem"),
        private_key_pem: key("app.example.com.key.pem"),
      }),
    ],
    createCalls: ["POST /tls_certificates"],
    update: [
      res("tls_certificates.c", {
        certificate_pem: key("app.example.com.crt.pem"),
        private_key_pem: key("app.example.com.key.pem"),
        description: "app",
      }),
    ],
    updateCalls: ["PATCH /tls_certificates/:id"],
    replace: [
      res("tls_certificates.c", {
        certificate_pem: key("api.example.com.crt.pem"),
        private_key_pem: key("api.example.com.key.pem"),
        description: "app",
      }),
    ],
    replaceCalls: ["DELETE /tls_certificates/:id", "POST /tls_certificates"],
    deleteCalls: ["DELETE /tls_certificates/:id"],
  },
  {
    name: "ip_restriction",
    create: [res("ip_restrictions.r", { type: "dashboard", ip_policy_ids: ["ipp_example01"] })],
    createCalls: ["POST /ip_restrictions"],
    update: [
      res("ip_restrictions.r", {
        type: "dashboard",
        ip_policy_ids: ["ipp_example02", "ipp_example01"],
        enforced: true,
      }),
    ],
    updateCalls: ["PATCH /ip_restrictions/:id"],
    replace: [
      res("ip_restrictions.r", {
        type: "api",
        ip_policy_ids: ["ipp_example02", "ipp_example01"],
        enforced: true,
      }),
    ],
    replaceCalls: ["DELETE /ip_restrictions/:id", "POST /ip_restrictions"],
    deleteCalls: ["DELETE /ip_restrictions/:id"],
  },
  {
    name: "event_destination",
    create: [
      res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k1" } } }),
    ],
    createCalls: ["POST /event_destinations"],
    update: [
      res("event_destinations.d", {
        format: "json",
        target: { log_group_target: { auth: { role: { role_arn: "arn:r" } }, log_group_arn: "arn:l" } },
      }),
    ],
    updateCalls: ["PATCH /event_destinations/:id"],
    deleteCalls: ["DELETE /event_destinations/:id"],
  },
  {
    name: "event_subscription",
    create: [
      res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k1" } } }),
      res("event_subscriptions.s", {
        sources: [{ type: "api_key_created.v0" }],
        destination_ids: [{ $ref: "event_destinations.d" }],
      }),
    ],
    createCalls: ["POST /event_destinations", "POST /event_subscriptions"],
    update: [
      res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k1" } } }),
      res("event_subscriptions.s", {
        sources: [{ type: "api_key_created.v0" }, { type: "api_key_deleted.v0" }],
        destination_ids: [{ $ref: "event_destinations.d" }],
      }),
    ],
    updateCalls: ["PATCH /event_subscriptions/:id"],
    deleteCalls: ["DELETE /event_subscriptions/:id"],
    keep: [res("event_destinations.d", { format: "json", target: { monitoring_target: { api_key: "k1" } } })],
  },
  ...modules(),
];

function modules(): Row[] {
  const m = (
    name: string,
    address: string,
    create: object,
    update: object,
    refs: DesiredResource[] = [],
  ): Row => {
    const path = address
      .replace(/^edges\.(https|tls|tcp)\./, "/edges/$1/")
      .replace(".routes.", "/routes/")
      .replace(/\.([a-z_]+)$/, "/$1");
    return {
      name,
      create: [...refs, res(address, create as Record<string, unknown>)],
      createCalls: [...refs.map(() => "POST /backends/tunnel_group"), `PUT ${path}`],
      update: [...refs, res(address, update as Record<string, unknown>)],
      updateCalls: [`PUT ${path}`],
      deleteCalls: [`DELETE ${path}`],
      keep: refs,
    };
  };
  return [
    m(
      "saml",
      `${R1}.saml`,
      { idp_metadata: IDP },
      { idp_metadata: IDP, force_authn: true, authorized_groups: ["b", "a"] },
    ),
    m(
      "oidc",
      `${R2}.oidc`,
      { issuer: "https://id.example.com", client_id: "web", client_secret: "s1" },
      {
        issuer: "https://id.example.com",
        client_id: "web",
        client_secret: "s2",
        scopes: ["openid", "email"],
      },
    ),
    m(
      "user_agent_filter",
      `${R2}.user_agent_filter`,
      { allow: ["^curl/"] },
      { allow: ["^curl/"], deny: ["[Bb]ot"] },
    ),
    m(
      "response_headers",
      `${R1}.response_headers`,
      { add: { "X-Frame-Options": "DENY" } },
      { add: { "X-Frame-Options": "DENY" }, remove: ["Server"] },
    ),
    m("compression", `${R1}.compression`, { enabled: true }, { enabled: false }),
    m(
      "https_edge_mutual_tls",
      "edges.https.edghts_example01.mutual_tls",
      { certificate_authority_ids: ["ca_example01"] },
      { certificate_authority_ids: ["ca_example02", "ca_example01"] },
    ),
    m(
      "tls_edge_backend",
      "edges.tls.edgtls_example01.backend",
      { backend_id: { $ref: "tunnel_group_backends.b" } },
      { backend_id: { $ref: "tunnel_group_backends.b" }, enabled: false },
      [backend],
    ),
    m(
      "tls_edge_mutual_tls",
      "edges.tls.edgtls_example01.mutual_tls",
      { certificate_authority_ids: ["ca_example02"] },
      { certificate_authority_ids: [], enabled: false },
    ),
    m(
      "tcp_edge_backend",
      "edges.tcp.edgtcp_example01.backend",
      { backend_id: { $ref: "tunnel_group_backends.b" } },
      { backend_id: { $ref: "tunnel_group_backends.b" }, enabled: false },
      [backend],
    ),
  ];
}

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

/** Applies `resources`, returns the calls made, and checks that planning again finds nothing to do. */
async function step(resources: DesiredResource[]): Promise<string[]> {
  bench.reset();
  await bench.apply(resources, { allowEmpty: true });
  const calls = bench.calls();
  bench.reset();
  const again = await bench.apply(resources, { allowEmpty: true });
  expect(hasChanges(again.plan), "plan again: no changes").toBe(false);
  expect(bench.calls(), "apply again: no calls").toEqual([]);
  return calls;
}

describe.each(rows)("$name", (row) => {
  it("is created, updated in place, replaced and deleted with the exact calls", async () => {
    expect(await step(row.create)).toEqual(row.createCalls);
    expect(await step(row.update)).toEqual(row.updateCalls);
    if (row.replace) expect(await step(row.replace)).toEqual(row.replaceCalls);
    expect(await step(row.keep ?? [])).toEqual(row.deleteCalls);
    if (row.keep) await step([]);
  });
});
