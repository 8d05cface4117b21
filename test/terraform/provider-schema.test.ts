import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { providerSchemaText } from "../../scripts/gen-provider-schema.js";
import { listDataSourceType, listedKinds } from "../../src/model/terraform-names.js";
import {
  buildProviderSchema,
  PROVIDER_SOURCE,
  type TerraformAttribute,
} from "../../src/terraform/provider-schema.js";

const doc = buildProviderSchema("9.9.9");
const provider = doc.provider_schemas[PROVIDER_SOURCE];
const attr = (type: string, name: string): TerraformAttribute | undefined =>
  provider?.resource_schemas[type]?.block.attributes[name];

it("src/terraform/provider-schema.gen.json is up to date with schemas/ (run `npm run gen`)", () => {
  const current = readFileSync(
    new URL("../../src/terraform/provider-schema.gen.json", import.meta.url),
    "utf8",
  );
  expect(current === providerSchemaText()).toBe(true);
});

describe("the provider schema", () => {
  it("has one resource type per desired-state kind and the data sources", () => {
    expect(Object.keys(provider?.resource_schemas ?? {}).sort()).toEqual([
      "tunnelgw_api_key",
      "tunnelgw_event_destination",
      "tunnelgw_event_subscription",
      "tunnelgw_https_edge_mutual_tls",
      "tunnelgw_https_edge_route_compression",
      "tunnelgw_https_edge_route_oidc",
      "tunnelgw_https_edge_route_response_headers",
      "tunnelgw_https_edge_route_saml",
      "tunnelgw_https_edge_route_user_agent_filter",
      "tunnelgw_ip_restriction",
      "tunnelgw_ssh_credential",
      "tunnelgw_ssh_host_certificate",
      "tunnelgw_tcp_edge_backend",
      "tunnelgw_tls_certificate",
      "tunnelgw_tls_edge_backend",
      "tunnelgw_tls_edge_mutual_tls",
      "tunnelgw_tunnel_group_backend",
    ]);
    expect(Object.keys(provider?.data_source_schemas ?? {})).toContain("tunnelgw_endpoints");
    expect(provider?.data_source_schemas.tunnelgw_https_edge_route?.block.attributes).toMatchObject({
      id: { required: true },
      edge_id: { required: true },
      match: { computed: true },
    });
    expect(doc.provider_versions).toEqual({ [PROVIDER_SOURCE]: "9.9.9" });
  });

  it("has a list data source in the plural for every kind the API lists, with filters, ids and the objects", () => {
    const lists = listedKinds().map(listDataSourceType).sort();
    expect(lists).toEqual(expect.arrayContaining(["tunnelgw_api_keys", "tunnelgw_endpoints"]));
    expect(lists).toContain("tunnelgw_tunnel_group_backends");
    expect(lists).toContain("tunnelgw_ip_policies");
    expect(lists).toContain("tunnelgw_https_edge_routes");
    expect(lists).not.toContain("tunnelgw_abuse_reports"); // no list operation
    for (const type of lists) expect(provider?.data_source_schemas[type], type).toBeDefined();
    const keys = provider?.data_source_schemas.tunnelgw_api_keys?.block.attributes ?? {};
    expect(keys).toMatchObject({
      id: { computed: true },
      description: { type: "string", optional: true },
      metadata: { type: "string", optional: true },
      ids: { type: ["list", "string"], computed: true },
      api_keys: { computed: true, nested_type: { nesting_mode: "list" } },
    });
    // Every attribute of the by-id data source, computed, none required; never the token.
    const byId = provider?.data_source_schemas.tunnelgw_api_key?.block.attributes ?? {};
    const item = keys.api_keys?.nested_type?.attributes ?? {};
    expect(Object.keys(item).sort()).toEqual(Object.keys(byId).sort());
    expect(Object.values(item).every((a) => a.computed && !a.required)).toBe(true);
    expect(item.token).toBeUndefined();
    expect(provider?.data_source_schemas.tunnelgw_https_edge_routes?.block.attributes).toMatchObject({
      edge_id: { required: true },
      https_edge_routes: { nested_type: { attributes: { edge_id: { computed: true } } } },
    });
    // The endpoint list has no description to filter by.
    expect(provider?.data_source_schemas.tunnelgw_endpoints?.block.attributes.description).toBeUndefined();
  });

  it("takes required, optional, computed, sensitive, write-only and replace from the schemas", () => {
    expect(attr("tunnelgw_tls_certificate", "private_key_pem")).toMatchObject({
      required: true,
      sensitive: true,
      write_only: true,
      requires_replace: true,
    });
    // A create field that the response always returns is optional + computed.
    expect(attr("tunnelgw_api_key", "owner_id")).toMatchObject({
      optional: true,
      computed: true,
      requires_replace: true,
    });
    expect(attr("tunnelgw_api_key", "description")).toMatchObject({ optional: true, computed: true });
    expect(attr("tunnelgw_api_key", "description")?.requires_replace).toBeUndefined();
    expect(attr("tunnelgw_api_key", "token")).toMatchObject({ computed: true, sensitive: true });
    expect(attr("tunnelgw_api_key", "token_file")).toMatchObject({ optional: true });
    expect(attr("tunnelgw_tunnel_group_backend", "tunnels")).toEqual(
      expect.objectContaining({
        computed: true,
        type: ["list", ["object", { id: "string", uri: "string" }]],
      }),
    );
    expect(attr("tunnelgw_tunnel_group_backend", "labels")?.type).toEqual(["map", "string"]);
    expect(attr("tunnelgw_ip_restriction", "ip_policy_ids")?.type).toEqual(["set", "string"]);
    expect(attr("tunnelgw_event_subscription", "sources")?.nested_type?.nesting_mode).toBe("set");
    expect(attr("tunnelgw_https_edge_route_oidc", "client_secret")).toMatchObject({ sensitive: true });
    expect(attr("tunnelgw_https_edge_route_oidc", "inactivity_timeout")).toMatchObject({ type: "number" });
  });

  it("gives modules their parent ids as required attributes that replace, and a computed id", () => {
    expect(attr("tunnelgw_https_edge_route_saml", "edge_id")).toMatchObject({
      required: true,
      requires_replace: true,
    });
    expect(attr("tunnelgw_https_edge_route_saml", "route_id")).toMatchObject({
      required: true,
      requires_replace: true,
    });
    expect(attr("tunnelgw_tls_edge_backend", "route_id")).toBeUndefined();
    expect(attr("tunnelgw_tls_edge_backend", "id")).toMatchObject({ computed: true });
    expect(attr("tunnelgw_https_edge_route_saml", "enabled")?.requires_replace).toBeUndefined();
  });

  it("never marks an attribute both required and optional, or write-only and computed", () => {
    const walk = (attrs: Record<string, TerraformAttribute>, path: string): string[] =>
      Object.entries(attrs).flatMap(([name, a]) => [
        ...((a.required && (a.optional || a.computed)) ||
        (a.write_only && a.computed) ||
        (!a.required && !a.optional && !a.computed)
          ? [`${path}.${name}`]
          : []),
        ...(a.nested_type ? walk(a.nested_type.attributes, `${path}.${name}`) : []),
      ]);
    const all = { ...provider?.resource_schemas, ...provider?.data_source_schemas };
    expect(Object.entries(all).flatMap(([type, s]) => walk(s.block.attributes, type))).toEqual([]);
  });
});

it("describes every attribute, nested ones included, of the provider, resources and data sources (issue 27)", () => {
  // Read from the generated file: what Terraform and the CDKTF bindings get.
  const generated = JSON.parse(
    readFileSync(new URL("../../src/terraform/provider-schema.gen.json", import.meta.url), "utf8"),
  ) as typeof doc;
  const schemas = generated.provider_schemas[PROVIDER_SOURCE];
  const undescribed: string[] = [];
  let count = 0;
  const walk = (where: string, attributes: Record<string, TerraformAttribute> | undefined) => {
    for (const [name, a] of Object.entries(attributes ?? {})) {
      count++;
      if (!a.description?.trim()) undescribed.push(`${where}.${name}`);
      if (a.nested_type) walk(`${where}.${name}`, a.nested_type.attributes);
    }
  };
  walk("provider", schemas?.provider.block.attributes);
  for (const [type, s] of Object.entries(schemas?.resource_schemas ?? {})) walk(type, s.block.attributes);
  for (const [type, s] of Object.entries(schemas?.data_source_schemas ?? {})) walk(type, s.block.attributes);
  expect(count).toBeGreaterThan(250);
  expect(undescribed).toEqual([]);
});

it("describes the provider's stack as the marker scope terraform:<stack>/<workspace>", () => {
  const stack = provider?.provider.block.attributes.stack?.description ?? "";
  expect(stack).toContain("terraform:<stack>/<workspace>");
  expect(stack).not.toContain("workspace directory");
});
