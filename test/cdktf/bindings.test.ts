// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Terraform references are written ${...}
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type App, TerraformStack, Testing } from "cdktf";
import { expect, it } from "vitest";
import { generateBindings } from "../../scripts/gen-cdktf.js";
import { ApiKey, HttpsEdgeRouteSaml, TunnelGroupBackend, TunnelgwProvider } from "../../src/cdktf/index.js";
import { buildProviderSchema } from "../../src/terraform/provider-schema.js";

const dir = fileURLToPath(new URL("../../src/cdktf/gen/", import.meta.url));

it("src/cdktf/gen/ is up to date with the provider schema (run `npm run gen`)", async () => {
  const generated = await generateBindings(buildProviderSchema());
  const committed = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length))
    .sort();
  expect(committed).toEqual([...generated.keys()].sort());
  const stale = [...generated].filter(
    ([rel, text]) => !existsSync(join(dir, rel)) || readFileSync(join(dir, rel), "utf8") !== text,
  );
  expect(stale.map(([rel]) => rel)).toEqual([]);
});

it("the constructs synthesize the provider's attribute names, tgw settings included", () => {
  const app = Testing.app();
  const stack = new TerraformStack(app as App, "bindings");
  new TunnelgwProvider(stack, "tunnelgw", { ownership: "state-only" });
  const web = new TunnelGroupBackend(stack, "web", { labels: { app: "web" } });
  new ApiKey(stack, "ci", { tokenFile: "secrets/ci.token", ownerId: "bot_1" });
  new HttpsEdgeRouteSaml(stack, "saml", {
    edgeId: "edghts_1",
    routeId: "edghtsrt_1",
    idpMetadata: "<xml/>",
    authorizedGroups: [web.id],
  });
  const json = JSON.parse(Testing.synth(stack)) as Record<string, Record<string, Record<string, unknown>>>;
  expect(json.provider?.tunnelgw).toEqual([{ ownership: "state-only" }]);
  expect(json.resource?.tunnelgw_api_key?.ci).toMatchObject({
    token_file: "secrets/ci.token",
    owner_id: "bot_1",
  });
  expect(json.resource?.tunnelgw_https_edge_route_saml?.saml).toMatchObject({
    edge_id: "edghts_1",
    route_id: "edghtsrt_1",
    idp_metadata: "<xml/>",
    authorized_groups: ["${tunnelgw_tunnel_group_backend.web.id}"],
  });
});
