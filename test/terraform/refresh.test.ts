/**
 * Refresh by list: `terraform plan` of 200 resources (and 2 modules) reads each kind with one list
 * page (after a GET for each of its first `GETS_BEFORE_LIST` reads) and each module with one GET,
 * counted at the reference server; a plan of one resource reads it with one GET, not its kind's list.
 * The objects are made through the API and adopted with Terraform `import` blocks, which is also an
 * import at scale.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { GETS_BEFORE_LIST } from "../../src/terraform/list-cache.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();
const COUNTS = { tunnel_group_backend: 70, api_key: 70, ip_restriction: 60 };
const PATHS = {
  tunnel_group_backend: "/backends/tunnel_group",
  api_key: "/api_keys",
  ip_restriction: "/ip_restrictions",
};
const MODULES = ["edghtsrt_example01", "edghtsrt_example02"].map(
  (route) => `/edges/https/edghts_example01/routes/${route}/compression`,
);

function configuration(ids: Record<string, string[]>, withModules = true): string {
  const blocks = Object.entries(ids).map(([kind, list]) => {
    const body =
      kind === "ip_restriction"
        ? 'description = each.key\n  type = "dashboard"\n  ip_policy_ids = ["ipp_example01"]'
        : "description = each.key";
    const map = JSON.stringify(Object.fromEntries(list.map((id, i) => [`${kind}-${i}`, id])));
    return `locals { ${kind} = ${map} }
resource "tunnelgw_${kind}" "r" {
  for_each = local.${kind}
  ${body}
}
import {
  for_each = local.${kind}
  to       = tunnelgw_${kind}.r[each.key]
  id       = each.value
}`;
  });
  const modules = MODULES.map(
    (path, i) => `resource "tunnelgw_https_edge_route_compression" "m${i}" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example0${i + 1}"
}
import {
  to = tunnelgw_https_edge_route_compression.m${i}
  id = "${path}"
}`,
  );
  return [
    'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}',
    ...blocks,
    ...(withModules ? modules : []),
  ].join("\n");
}

describe.skipIf(!available)("terraform plan refreshes by list", () => {
  let server: TestServer;
  let home: TerraformHome;
  let dir: string;
  /** An API key that only the one-resource workspace manages. */
  let alone: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    const api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
    const ids: Record<string, string[]> = {};
    for (const [kind, n] of Object.entries(COUNTS)) {
      ids[kind] = [];
      for (let i = 0; i < n; i++) {
        const body: Record<string, unknown> = { description: `${kind}-${i}` };
        if (kind === "ip_restriction")
          Object.assign(body, { type: "dashboard", ip_policy_ids: ["ipp_example01"] });
        const made = await api.post<{ id: string }>(PATHS[kind as keyof typeof PATHS], body);
        ids[kind]?.push(made.id);
      }
    }
    for (const path of MODULES) await api.put(path, { enabled: true });
    alone = (await api.post<{ id: string }>(PATHS.api_key, { description: "api_key-0" })).id;
    await api.close();
    dir = home.workspace("many");
    writeFileSync(join(dir, "main.tf"), configuration(ids));
  }, 60_000);
  afterAll(async () => {
    home?.close();
    await server?.close();
  });

  it("imports 200 resources and 2 modules, then plans them with one list page per kind and one GET per module", async () => {
    await home.tf(dir, "init", "-input=false", "-no-color");
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.stdout).toContain("202 imported, 0 added, 0 changed, 0 destroyed");
    server.resetRequests();
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    const counts = new Map<string, number>();
    for (const r of server.requests)
      counts.set(`${r.method} ${r.path}`, (counts.get(`${r.method} ${r.path}`) ?? 0) + 1);
    const expected = new Map([
      ...Object.values(PATHS).map((p) => [`GET ${p}`, 1] as const),
      ...MODULES.map((p) => [`GET ${p}`, 1] as const),
    ]);
    const objectGets = new Map<string, number>();
    for (const [call, n] of counts) {
      const path = Object.values(PATHS).find((p) => call.startsWith(`GET ${p}/`));
      if (!path) continue;
      counts.delete(call);
      objectGets.set(path, (objectGets.get(path) ?? 0) + n);
    }
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));
    expect(Object.fromEntries(objectGets)).toEqual(
      Object.fromEntries(Object.values(PATHS).map((p) => [p, GETS_BEFORE_LIST])),
    );
  }, 240_000);

  it("plans one resource of a kind with one GET, not the kind's list", async () => {
    const one = home.workspace("one");
    writeFileSync(join(one, "main.tf"), configuration({ api_key: [alone] }, false));
    await home.tf(one, "init", "-input=false", "-no-color");
    expect((await home.tf(one, ...APPLY)).stdout).toContain("1 imported, 0 added, 0 changed, 0 destroyed");
    server.resetRequests();
    const plan = await home.tf(one, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api_keys/${alone}`]);
  }, 240_000);
});
