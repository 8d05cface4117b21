/**
 * The list data sources (issue 27 §2.6, `tunnelgw_api_keys`, `tunnelgw_https_edge_routes`...), with
 * the real `terraform` against the reference server: one configuration creates API keys and tunnel
 * group backends and reads them back through list data sources without and with filters
 * (`description` exact, `metadata` compared as data, both at once), plus a nested list (an edge's
 * routes) and a referenced-only kind's list (users). Few terraform runs: an apply, its re-plan, an
 * apply after a change the filters see, and a plan that names a parent which does not exist.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { getKind } from "../../src/model/index.js";
import { pluralName } from "../../src/model/terraform-names.js";
import { matchesFilters } from "../../src/terraform/provider.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();
type Raw = Record<string, unknown>;
/** A data source's value as `terraform output -json` shows it. */
type Listed = { id: string; ids: string[] } & Record<string, unknown>;

const RESOURCES = `
resource "tunnelgw_api_key" "a" {
  description = "list-a"
  metadata    = jsonencode({ team = "web", n = 1 })
}
resource "tunnelgw_api_key" "b" {
  description = "%B%"
  metadata    = jsonencode({ team = "db" })
}
resource "tunnelgw_tunnel_group_backend" "web" {
  description = "list-web"
  metadata    = jsonencode({ team = "web" })
  labels      = { app = "web" }
}
resource "tunnelgw_tunnel_group_backend" "db" {
  description = "list-db"
  labels      = { app = "db" }
}
`;

/** Data sources read after every resource (`depends_on`), each shown whole as an output. */
const DATA: Record<string, string> = {
  "tunnelgw_api_keys.all": "",
  "tunnelgw_api_keys.by_description": `description = "list-a"`,
  // Another key order and spacing than the resource's: metadata is compared as data.
  "tunnelgw_api_keys.by_metadata": `metadata = "{ \\"n\\": 1, \\"team\\": \\"web\\" }"`,
  "tunnelgw_api_keys.both": `description = "list-a"\n  metadata = jsonencode({ team = "db" })`,
  "tunnelgw_tunnel_group_backends.web": `metadata = jsonencode({ team = "web" })`,
  "tunnelgw_tunnel_group_backends.none": `description = "no such backend"`,
  "tunnelgw_https_edge_routes.routes": `edge_id = "%EDGE%"`,
  "tunnelgw_users.all": "",
};

describe("list data source filters", () => {
  it("match description exactly and metadata as data (the marker aside); unset filters match all", () => {
    const item = { id: "ak_1", description: "web", metadata: '{"n":1,"team":"web"}' };
    expect(matchesFilters(item, { description: null, metadata: null })).toBe(true);
    expect(matchesFilters(item, { description: "web" })).toBe(true);
    expect(matchesFilters(item, { description: "Web" })).toBe(false);
    expect(matchesFilters(item, { metadata: '{ "team": "web", "n": 1 }' })).toBe(true);
    expect(matchesFilters(item, { description: "web", metadata: '{"team":"db"}' })).toBe(false);
    expect(matchesFilters({ id: "ak_2", description: "", metadata: "" }, { metadata: "" })).toBe(true);
  });

  it("name a list in the plural", () => {
    expect(pluralName(getKind("api_key"))).toBe("api_keys");
    expect(pluralName(getKind("ip_policy"))).toBe("ip_policies");
    expect(pluralName(getKind("https_edge_route"))).toBe("https_edge_routes");
    expect(pluralName(getKind("reserved_addr"))).toBe("reserved_addrs");
  });
});

describe.skipIf(!available)("terraform list data sources (issue 27 §2.6)", () => {
  let home: TerraformHome;
  let api: ApiClient;
  let server: TestServer;
  let dir: string;
  let edgeId: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
    const edges = await api.listAll<Raw>(getKind("https_edge").path, "https_edges");
    edgeId = String(edges[0]?.id);
    dir = home.workspace("lists");
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    home?.close();
    await server?.close();
  });

  /** Writes the configuration with API key `b` described as `bDescription` (and `extra` blocks). */
  function write(bDescription: string, extra = ""): void {
    const resources = [...RESOURCES.matchAll(/resource "(\w+)" "(\w+)"/g)].map((m) => `${m[1]}.${m[2]}`);
    const data = Object.entries(DATA).map(([address, args]) => {
      const [type, name] = address.split(".");
      const body = args.replace("%EDGE%", edgeId);
      return `data "${type}" "${name}" {\n  ${body}\n  depends_on = [${resources.join(", ")}]\n}`;
    });
    const outputs = Object.keys(DATA).map(
      (address) => `output "${address.replace(".", "__")}" {\n  value = data.${address}\n}`,
    );
    writeFileSync(
      join(dir, "main.tf"),
      [
        'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}',
        RESOURCES.replace("%B%", bDescription),
        ...data,
        ...outputs,
        extra,
      ].join("\n"),
    );
  }

  async function outputs(): Promise<Record<string, Listed>> {
    const out = await home.tf(dir, "output", "-json", "-no-color");
    const values = JSON.parse(out.stdout) as Record<string, { value: Listed }>;
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [k.replace("__", "."), v.value]));
  }

  const ids = async (path: string, listKey: string) =>
    (await api.listAll<Raw>(path, listKey)).map((o) => String(o.id));
  const byDescription = async (description: string) =>
    (await api.listAll<Raw>("/api_keys", "keys")).filter((k) => k.description === description);

  it("lists every object without filters, narrows by description and metadata, and shows none as []", async () => {
    write("list-b");
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const out = await outputs();
    const [a] = await byDescription("list-a");
    const [b] = await byDescription("list-b");
    expect(a && b).toBeTruthy();

    const all = out["tunnelgw_api_keys.all"] as Listed;
    expect(all.id).toBe("api_keys");
    expect(all.ids).toEqual(await ids("/api_keys", "keys"));
    expect(all.ids).toEqual(expect.arrayContaining([a?.id, b?.id]));
    const shownA = (all.api_keys as Raw[]).find((k) => k.id === a?.id);
    // The user's part of metadata (the ownership marker is tgw's), canonical JSON; no token.
    expect(shownA).toEqual({
      id: a?.id,
      uri: a?.uri,
      created_at: a?.created_at,
      description: "list-a",
      metadata: '{"n":1,"team":"web"}',
      owner_id: a?.owner_id,
    });

    expect(out["tunnelgw_api_keys.by_description"]?.ids).toEqual([a?.id]);
    expect(out["tunnelgw_api_keys.by_metadata"]?.ids).toEqual([a?.id]);
    // Every filter must hold: "list-a" has the metadata of "web", not "db".
    expect(out["tunnelgw_api_keys.both"]).toMatchObject({ ids: [], api_keys: [] });

    const web = out["tunnelgw_tunnel_group_backends.web"] as Listed;
    expect(web.ids).toHaveLength(1);
    expect(web.tunnel_group_backends).toEqual([
      expect.objectContaining({
        id: web.ids[0],
        description: "list-web",
        metadata: '{"team":"web"}',
        labels: { app: "web" },
        // The response-only values too: the tunnels the server matched with the labels.
        tunnels: (await api.get<Raw>(`${getKind("tunnel_group_backend").path}/${web.ids[0]}`)).tunnels,
      }),
    ]);
    expect(out["tunnelgw_tunnel_group_backends.none"]).toEqual({
      id: "tunnel_group_backends",
      ids: [],
      tunnel_group_backends: [],
      description: "no such backend",
      metadata: null,
    });

    const routesPath = getKind("https_edge_route").path.replace("{edge_id}", edgeId);
    const routes = out["tunnelgw_https_edge_routes.routes"] as Listed;
    expect(routes.ids).toEqual(await ids(routesPath, "routes"));
    for (const r of routes.https_edge_routes as Raw[]) expect(r.edge_id).toBe(edgeId);
    expect(out["tunnelgw_users.all"]?.ids).toEqual(await ids("/users", "users"));
    expect((out["tunnelgw_users.all"]?.ids ?? []).length).toBeGreaterThan(0);

    // Read again by the re-plan: the same values, so no change to any output.
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout + plan.stderr).not.toMatch(/Changes to Outputs|will be/);
    expect(plan.code).toBe(0);
  }, 180_000);

  it("sees a change made by the same apply, and names a parent that does not exist", async () => {
    write("list-a");
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    const out = await outputs();
    const keys = await byDescription("list-a");
    expect(keys).toHaveLength(2);
    // The change the apply made shows (the provider's cached list is read anew once it wrote to it).
    expect(out["tunnelgw_api_keys.by_description"]?.ids).toEqual(keys.map((k) => k.id));
    expect(out["tunnelgw_api_keys.all"]?.ids).toEqual(await ids("/api_keys", "keys"));

    write("list-a", 'data "tunnelgw_https_edge_routes" "gone" {\n  edge_id = "edghts_doesnotexist"\n}');
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("HTTPS edge edghts_doesnotexist not found");
    expect(plan.stderr).toContain("data.tunnelgw_https_edge_routes.gone");
  }, 180_000);
});
