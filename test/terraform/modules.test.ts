/**
 * Issue 27, defect 3: a module resource is not a blind PUT. A module's identity is its API path, so
 * creating one over a module set by hand is refused with an error that says to import it (nothing
 * changes on the server); once imported it is managed like any resource; and two resources on one
 * path are refused, naming the path, at plan time, so neither applies and the plan does not flap.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

const ROUTE2 = "/edges/https/edghts_example01/routes/edghtsrt_example02/compression";
const ROUTE1 = "/edges/https/edghts_example01/routes/edghtsrt_example01/compression";
const HEADER = `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
`;
const compression = (name: string, route: string, enabled: boolean) => `
resource "tunnelgw_https_edge_route_compression" "${name}" {
  edge_id  = "edghts_example01"
  route_id = "${route}"
  enabled  = ${enabled}
}
`;

describe.skipIf(!available)("terraform: a module resource over an existing module (issue 27)", () => {
  let server: TestServer;
  let home: TerraformHome;
  let api: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    home?.close();
    await server?.close();
  });

  const puts = () => server.mutations().filter((r) => r.method !== "GET");
  const live = (path: string) =>
    api.get<{ enabled: boolean }>(path).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    });

  it("refuses to create over a module set by hand, saying to import it; after the import it is managed", async () => {
    const dir = home.workspace("by-hand");
    await api.put(ROUTE2, { enabled: false });
    writeFileSync(join(dir, "main.tf"), HEADER + compression("api", "edghtsrt_example02", true));
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);

    server.resetRequests();
    const refused = await home.tf(dir, ...APPLY);
    expect(refused.code).toBe(1);
    const message = refused.stderr.replace(/\s+/g, " ");
    expect(message).toContain(`${ROUTE2} already exists`);
    expect(message).toContain(
      `to manage it with Terraform, import it: terraform import tunnelgw_https_edge_route_compression.<name> ${ROUTE2}`,
    );
    expect(puts()).toEqual([]);
    expect(await live(ROUTE2)).toMatchObject({ enabled: false });

    // An import block (or terraform import) takes it over: applied once, then nothing to do.
    writeFileSync(
      join(dir, "import.tf"),
      `import {
  to = tunnelgw_https_edge_route_compression.api
  id = "${ROUTE2}"
}
`,
    );
    const imported = await home.tf(dir, ...APPLY);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toContain("1 imported, 0 added, 1 changed, 0 destroyed");
    expect(await live(ROUTE2)).toMatchObject({ enabled: true });
    const plan = await home.tf(dir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  }, 120_000);

  it("refuses a second resource on the same path, naming the path, and the plan does not flap", async () => {
    const dir = join(home.root, "by-hand");
    // The same workspace: `api` is in the state (enabled = true); `dup` wants the same module off.
    writeFileSync(
      join(dir, "main.tf"),
      HEADER +
        compression("api", "edghtsrt_example02", true) +
        compression("dup", "edghtsrt_example02", false),
    );
    for (let run = 0; run < 2; run++) {
      server.resetRequests();
      const apply = await home.tf(dir, ...APPLY);
      expect(apply.code).toBe(1);
      const message = apply.stderr.replace(/\s+/g, " ");
      expect(message).toContain(`two resources manage the module ${ROUTE2}`);
      expect(puts()).toEqual([]);
      expect(await live(ROUTE2)).toMatchObject({ enabled: true });
    }
  }, 120_000);

  it("refuses two new resources on one path: neither is applied", async () => {
    const dir = home.workspace("two-new");
    writeFileSync(
      join(dir, "main.tf"),
      HEADER + compression("a", "edghtsrt_example01", true) + compression("b", "edghtsrt_example01", false),
    );
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    server.resetRequests();
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.code).toBe(1);
    expect(apply.stderr.replace(/\s+/g, " ")).toContain(`two resources manage the module ${ROUTE1}`);
    expect(puts()).toEqual([]);
    expect(await live(ROUTE1)).toBeUndefined();
  }, 120_000);

  it("replaces a module moved to another route, and still refuses a second resource on its new path", async () => {
    const dir = home.workspace("move");
    const filter = (name: string, route: string) => `
resource "tunnelgw_https_edge_route_user_agent_filter" "${name}" {
  edge_id  = "edghts_example01"
  route_id = "${route}"
  allow    = ["^curl"]
}
`;
    const at = (route: string) => `/edges/https/edghts_example01/routes/${route}/user_agent_filter`;
    writeFileSync(join(dir, "main.tf"), HEADER + filter("m", "edghtsrt_example01"));
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    expect((await home.tf(dir, ...APPLY)).code).toBe(0);
    // Terraform plans the create half of a replace a second time: the same resource, not a second one.
    writeFileSync(join(dir, "main.tf"), HEADER + filter("m", "edghtsrt_example02"));
    const move = await home.tf(dir, ...APPLY);
    expect(move.stderr).toBe("");
    expect(move.stdout).toContain("must be replaced");
    expect(await live(at("edghtsrt_example01"))).toBeUndefined();
    expect(await live(at("edghtsrt_example02"))).toBeDefined();
    expect((await home.tf(dir, ...PLAN)).code).toBe(0);
    writeFileSync(
      join(dir, "main.tf"),
      HEADER + filter("m", "edghtsrt_example01") + filter("n", "edghtsrt_example01"),
    );
    const twice = await home.tf(dir, ...APPLY);
    expect(twice.code).toBe(1);
    expect(twice.stderr.replace(/\s+/g, " ")).toContain(
      `two resources manage the module ${at("edghtsrt_example01")}`,
    );
  }, 120_000);
});
