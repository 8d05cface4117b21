/**
 * terraform-provider-tunnelgw driven by the real `terraform` against a reference server: the complete
 * example applied from an offline mirror, then a clean plan, an update in place, a forced replacement,
 * drift and a deletion made through the API, an import, validation messages, and a destroy. One
 * workspace (one `terraform init`) for the whole file; the steps run in order.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { collections, encodeMetadata } from "../../src/model/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));
const available = terraformAvailable();

describe.skipIf(!available)("terraform with terraform-provider-tunnelgw", () => {
  let server: TestServer;
  let home: TerraformHome;
  let api: ApiClient;
  let dir: string;
  const mainTf = () => join(dir, "main.tf");
  const edit = (from: string, to: string) => {
    const text = readFileSync(mainTf(), "utf8");
    expect(text).toContain(from);
    writeFileSync(mainTf(), text.replace(from, to));
  };
  const mutations = () =>
    server.mutations().map((r) => `${r.method} ${r.path.replace(/\/[a-z]+_[A-Za-z0-9]{20,}$/, "/:id")}`);

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
    home.workspace("keys", join(EXAMPLES, "keys"));
    dir = home.workspace("terraform", join(EXAMPLES, "terraform"));
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    home?.close();
    await server?.close();
  });

  it("initialises offline from the mirror and applies examples/terraform; a plan right after is empty", async () => {
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.stderr).toBe("");
    expect(init.stdout).toContain("Installing tunnelgw/tunnelgw v0.1.0");
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stderr).toBe("");
    expect(apply.stdout).toContain("Apply complete! Resources: 22 added, 0 changed, 0 destroyed.");
    const state = readFileSync(join(dir, "terraform.tfstate"), "utf8");
    expect(state).not.toContain("PRIVATE KEY");
    server.resetRequests();
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    expect(mutations()).toEqual([]);
  }, 240_000);

  it("marks what it creates as Terraform's and keeps the API key token from creation", async () => {
    const state = JSON.parse(readFileSync(join(dir, "terraform.tfstate"), "utf8")) as {
      resources: { type: string; name: string; instances: { attributes: Record<string, unknown> }[] }[];
    };
    const ci = state.resources.find((r) => r.type === "tunnelgw_api_key" && r.name === "ci");
    const attrs = ci?.instances[0]?.attributes ?? {};
    expect(String(attrs.token)).toMatch(/^tgw_/);
    expect(attrs.metadata).toBe('{"managed-by":"tgw","team":"platform"}');
    const live = await api.get<{ metadata: string; token: unknown }>(`/api_keys/${attrs.id}`);
    // The workspace directory's name and path digest, the workspace, the type and arguments' digest,
    // and the create call's id (docs/terraform.md > Ownership).
    expect(JSON.parse(live.metadata).tgw).toEqual({
      address: expect.stringMatching(/^tunnelgw_api_key#[0-9a-f]{16}$/),
      lineage: expect.stringMatching(/^[0-9a-f-]{36}$/),
      stack: expect.stringMatching(/^terraform:terraform-[0-9a-f]{8}\/default$/),
    });
  });

  it("updates in place with one PATCH, and replaces what PATCH cannot change", async () => {
    edit('description = "Database tunnels"', 'description = "Database tunnels (replica)"');
    edit(
      'principals                   = ["bastion.example.com"]',
      'principals                   = ["bastion.example.com", "jump.example.com"]',
    );
    server.resetRequests();
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stdout).toContain('~ description = "Database tunnels" -> "Database tunnels (replica)"');
    expect(apply.stdout).toContain("# forces replacement");
    expect(apply.stdout).toContain("1 added, 1 changed, 1 destroyed");
    expect(mutations().sort()).toEqual([
      "DELETE /ssh_host_certificates/:id",
      "PATCH /backends/tunnel_group/:id",
      "POST /ssh_host_certificates",
    ]);
  }, 120_000);

  it("shows drift and a deletion made through the API, and corrects both", async () => {
    const state = readFileSync(join(dir, "terraform.tfstate"), "utf8");
    const ids = [...state.matchAll(/"id": "((?:ak|ipx)_[A-Za-z0-9]+)"/g)].map((m) => m[1] as string);
    const exporter = ids.find((id) => id.startsWith("ak_")) as string;
    const restriction = ids.find((id) => id.startsWith("ipx_")) as string;
    const live = await api.get<{ description: string }>(`/api_keys/${exporter}`);
    await api.patch(`/api_keys/${exporter}`, { description: `${live.description} (edited by hand)` });
    await api.delete(`/ip_restrictions/${restriction}`);
    server.resetRequests();
    // The plan apply prints shows both; the plan of the next test checks that nothing is left.
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stdout).toContain("(edited by hand)");
    expect(apply.stdout).toContain("tunnelgw_ip_restriction.dashboard will be created");
    expect(apply.stdout).toContain("1 added, 1 changed, 0 destroyed");
    expect(mutations().sort()).toEqual(["PATCH /api_keys/:id", "POST /ip_restrictions"]);
  }, 180_000);

  it("imports an object and a module made by hand, then plans no changes (drift corrected too)", async () => {
    const made = await api.post<{ id: string }>("/backends/tunnel_group", {
      description: "Made by hand",
      labels: { team: "ops" },
    });
    await api.put("/edges/https/edghts_example01/routes/edghtsrt_example02/compression", { enabled: false });
    writeFileSync(
      join(dir, "imported.tf"),
      `resource "tunnelgw_tunnel_group_backend" "manual" {
  description = "Made by hand"
  labels      = { team = "ops" }
}
resource "tunnelgw_https_edge_route_compression" "api" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example02"
  enabled  = false
}
`,
    );
    const one = await home.tf(
      dir,
      "import",
      "-input=false",
      "-no-color",
      "tunnelgw_tunnel_group_backend.manual",
      made.id,
    );
    expect(one.stdout).toContain("Import successful!");
    const two = await home.tf(
      dir,
      "import",
      "-input=false",
      "-no-color",
      "tunnelgw_https_edge_route_compression.api",
      "/edges/https/edghts_example01/routes/edghtsrt_example02/compression",
    );
    expect(two.stdout).toContain("Import successful!");
    // An object a tgw stack owns is refused.
    const owned = await api.post<{ id: string }>("/backends/tunnel_group", {
      metadata: encodeMetadata(undefined, { stack: "prod", address: "tunnel_group_backends.web" }),
    });
    writeFileSync(join(dir, "refused.tf"), 'resource "tunnelgw_tunnel_group_backend" "owned" {}\n');
    const refused = await home.tf(
      dir,
      "import",
      "-input=false",
      "-no-color",
      "tunnelgw_tunnel_group_backend.owned",
      owned.id,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('belongs to the tgw stack "prod"');
    rmSync(join(dir, "refused.tf"));
    await api.delete(`/backends/tunnel_group/${owned.id}`);
    server.resetRequests();
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  }, 180_000);

  it("reports invalid values with the messages of tgw validate, at the attribute", async () => {
    const bad = home.workspace("bad");
    writeFileSync(
      join(bad, "main.tf"),
      `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
resource "tunnelgw_https_edge_route_response_headers" "x" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example01"
  add      = { "X-Frame-Options" = "DENY", "x-frame-options" = "SAMEORIGIN" }
}
resource "tunnelgw_api_key" "x" {
  description = "${"d".repeat(300)}"
}
`,
    );
    await home.tf(bad, "init", "-input=false", "-no-color");
    const result = await home.tf(bad, "validate", "-no-color");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("must be at most 255 bytes of UTF-8 (is 300)");
    expect(result.stderr).toContain(
      "is the same header as X-Frame-Options (header names are case-insensitive)",
    );
    expect(result.stderr).toContain('on main.tf line 12, in resource "tunnelgw_api_key" "x"');
  }, 120_000);

  it("destroys everything it created, leaving no object and no module", async () => {
    const destroy = await home.tf(dir, "destroy", "-auto-approve", "-input=false", "-no-color");
    expect(destroy.stdout).toContain("Destroy complete! Resources: 24 destroyed.");
    for (const kind of collections().values()) {
      const items = await api.listAll(kind.path, kind.listKey as string);
      expect(items.length, kind.kind).toBe(0);
    }
    await expect(
      api.get("/edges/https/edghts_example01/routes/edghtsrt_example01/saml"),
    ).rejects.toMatchObject({
      status: 404,
    });
  }, 120_000);
});
