/**
 * Issue 27, defect 1: response-only attributes derived from an input (a backend's `tunnels` from its
 * `labels`, `ip_policies` from `ip_policy_ids`, a subscription's `destinations`, a backend module's
 * `backend` from `backend_id`, a mutual TLS module's `certificate_authorities`) are planned unknown
 * when that input changes, so an ordinary update applies without "Provider produced inconsistent
 * result", the next plan is empty, and what refers to them (an output, another resource) gets the
 * new value. One workspace, two applies and one plan for all seven resource types.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

/** The configuration before (1) and after (2) the update of every input a derived attribute follows. */
function configuration(step: 1 | 2): string {
  const after = step === 2;
  const destination = (name: string) => `resource "tunnelgw_event_destination" "${name}" {
  format = "json"
  target = { monitoring_target = { api_key = "not-a-secret-${name}" } }
}`;
  return `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
resource "tunnelgw_tunnel_group_backend" "a" {
  # examples/fixtures.yaml's tunnel tn_example01 has the labels env=prod, app=web.
  labels = ${after ? '{ env = "prod", app = "web" }' : '{ app = "db" }'}
}
resource "tunnelgw_tunnel_group_backend" "b" {
  labels = { app = "other" }
}
resource "tunnelgw_ip_restriction" "r" {
  type          = "dashboard"
  ip_policy_ids = ${after ? '["ipp_example01", "ipp_example02"]' : '["ipp_example01"]'}
}
${destination("d1")}
${destination("d2")}
resource "tunnelgw_event_subscription" "s" {
  sources         = [{ type = "api_key_created.v0" }]
  destination_ids = ${after ? "[tunnelgw_event_destination.d1.id, tunnelgw_event_destination.d2.id]" : "[tunnelgw_event_destination.d1.id]"}
}
resource "tunnelgw_tls_edge_backend" "tls" {
  edge_id    = "edgtls_example01"
  backend_id = tunnelgw_tunnel_group_backend.${after ? "b" : "a"}.id
}
resource "tunnelgw_tcp_edge_backend" "tcp" {
  edge_id    = "edgtcp_example01"
  backend_id = tunnelgw_tunnel_group_backend.${after ? "b" : "a"}.id
}
resource "tunnelgw_https_edge_mutual_tls" "https" {
  edge_id                   = "edghts_example01"
  certificate_authority_ids = ${after ? '["ca_example01", "ca_example02"]' : '["ca_example01"]'}
}
resource "tunnelgw_tls_edge_mutual_tls" "tls" {
  edge_id                   = "edgtls_example01"
  certificate_authority_ids = ${after ? '["ca_example01", "ca_example02"]' : '["ca_example01"]'}
}
locals {
  derived = {
    tunnels         = sort(tunnelgw_tunnel_group_backend.a.tunnels[*].id)
    ip_policies     = sort(tunnelgw_ip_restriction.r.ip_policies[*].id)
    destinations    = sort(tunnelgw_event_subscription.s.destinations[*].id)
    tls_backend_id  = tunnelgw_tls_edge_backend.tls.backend.id
    tls_backend_uri = tunnelgw_tls_edge_backend.tls.backend.uri
    tcp_backend_id  = tunnelgw_tcp_edge_backend.tcp.backend.id
    tcp_backend_uri = tunnelgw_tcp_edge_backend.tcp.backend.uri
    https_cas       = sort(tunnelgw_https_edge_mutual_tls.https.certificate_authorities[*].id)
    tls_cas         = sort(tunnelgw_tls_edge_mutual_tls.tls.certificate_authorities[*].id)
  }
}
# Resources that depend on the derived attributes: planned with the new values, not the stale ones.
resource "tunnelgw_api_key" "dependent" {
  description = tunnelgw_tls_edge_backend.tls.backend.id
}
resource "terraform_data" "dependent" {
  input = local.derived
}
output "derived" {
  value = local.derived
}
output "dependent" {
  value = { description = tunnelgw_api_key.dependent.description, data = terraform_data.dependent.output }
}
`;
}

interface Ref {
  id: string;
  uri: string;
}

describe.skipIf(!available)("terraform: attributes derived from an updated input (issue 27)", () => {
  let server: TestServer;
  let home: TerraformHome;
  let api: ApiClient;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
    dir = home.workspace("derived");
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    home?.close();
    await server?.close();
  });

  /** `terraform output -json` as values. */
  async function outputs(): Promise<Record<string, unknown>> {
    const out = await home.tf(dir, "output", "-json", "-no-color");
    expect(out.code, out.stderr).toBe(0);
    const parsed = JSON.parse(out.stdout) as Record<string, { value: unknown }>;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v.value]));
  }

  /** The derived values as the API shows them now, in the shape of the `derived` local. */
  async function liveDerived(state: Record<string, string>): Promise<Record<string, unknown>> {
    const ids = (refs: Ref[]) => refs.map((r) => r.id).sort();
    const backend = await api.get<{ tunnels: Ref[] }>(`/backends/tunnel_group/${state.a}`);
    const restriction = await api.get<{ ip_policies: Ref[] }>(`/ip_restrictions/${state.r}`);
    const subscription = await api.get<{ destinations: Ref[] }>(`/event_subscriptions/${state.s}`);
    const tls = await api.get<{ backend: Ref }>("/edges/tls/edgtls_example01/backend");
    const tcp = await api.get<{ backend: Ref }>("/edges/tcp/edgtcp_example01/backend");
    const httpsCas = await api.get<{ certificate_authorities: Ref[] }>(
      "/edges/https/edghts_example01/mutual_tls",
    );
    const tlsCas = await api.get<{ certificate_authorities: Ref[] }>(
      "/edges/tls/edgtls_example01/mutual_tls",
    );
    return {
      tunnels: ids(backend.tunnels),
      ip_policies: ids(restriction.ip_policies),
      destinations: ids(subscription.destinations),
      tls_backend_id: tls.backend.id,
      tls_backend_uri: tls.backend.uri,
      tcp_backend_id: tcp.backend.id,
      tcp_backend_uri: tcp.backend.uri,
      https_cas: ids(httpsCas.certificate_authorities),
      tls_cas: ids(tlsCas.certificate_authorities),
    };
  }

  /** Ids from the state by resource name (`a`, `b`, `r`, `s`, `d1`, `d2`). */
  async function stateIds(): Promise<Record<string, string>> {
    const show = await home.tf(dir, "show", "-json", "-no-color");
    const doc = JSON.parse(show.stdout) as {
      values: { root_module: { resources: { type: string; name: string; values: { id: string } }[] } };
    };
    const out: Record<string, string> = {};
    for (const r of doc.values.root_module.resources) {
      if (r.type.startsWith("tunnelgw_") && !r.type.includes("edge")) out[r.name] = r.values.id;
    }
    return out;
  }

  it("creates, updates every derived-from input without an inconsistent result, then plans no changes", async () => {
    writeFileSync(join(dir, "main.tf"), configuration(1));
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    const create = await home.tf(dir, ...APPLY);
    expect(create.stderr).toBe("");
    expect(create.code).toBe(0);
    const before = await stateIds();
    const first = await outputs();
    expect(first.derived).toEqual(await liveDerived(before));
    expect(first.derived).toMatchObject({
      tunnels: [],
      tls_backend_id: before.a,
      https_cas: ["ca_example01"],
    });

    writeFileSync(join(dir, "main.tf"), configuration(2));
    const update = await home.tf(dir, ...APPLY);
    expect(update.stderr).not.toContain("inconsistent result");
    expect(update.stderr).toBe("");
    expect(update.code).toBe(0);
    // The plan shown before apply: the dependent description is not the stale backend id.
    expect(update.stdout).toContain(`~ description = "${before.a}" -> (known after apply)`);
    expect(update.stdout).toContain("Apply complete! Resources: 0 added, 9 changed, 0 destroyed.");

    const ids = await stateIds();
    const live = await liveDerived(ids);
    expect(live).toMatchObject({
      tunnels: ["tn_example01"],
      ip_policies: ["ipp_example01", "ipp_example02"],
      destinations: [ids.d1, ids.d2].sort(),
      tls_backend_id: ids.b,
      tcp_backend_id: ids.b,
      https_cas: ["ca_example01", "ca_example02"],
      tls_cas: ["ca_example01", "ca_example02"],
    });
    const second = await outputs();
    expect(second.derived).toEqual(live);
    expect(second.dependent).toEqual({ description: ids.b, data: live });

    server.resetRequests();
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    expect(server.mutations()).toEqual([]);
  }, 300_000);
});
