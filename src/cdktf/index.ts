/**
 * `@tunnelgw/cdktf` (packages/cdktf, built from this module by scripts/bundle.ts): typed CDKTF
 * constructs for the `tunnelgw` provider, generated from schemas/ (`npm run gen`; docs/cdktf.md). A
 * CDKTF app synthesizes them to `cdk.tf.json`, which `tgw plan` / `tgw apply -f
 * cdktf.out/stacks/<stack>` reconcile, or which Terraform applies with the provider. Only `cdktf` and
 * `constructs` may be imported here: they are the package's only dependencies (its peers).
 *
 * Every class is exported flat (`ApiKey`, `TunnelGroupBackend`, `HttpsEdgeRouteOidc`,
 * `TunnelgwProvider`, `DataTunnelgwIpPolicy`...) and in the generator's namespaces
 * (`apiKey.ApiKey`), as in the prebuilt provider packages.
 *
 * @example
 * import { App, TerraformStack } from "cdktf";
 * import { ApiKey, TunnelgwProvider } from "@tunnelgw/cdktf";
 * const app = new App();
 * const stack = new TerraformStack(app, "production");
 * new TunnelgwProvider(stack, "tunnelgw");
 * new ApiKey(stack, "ci", { description: "Deploys from CI", tokenFile: ".tgw/secrets/ci.token" });
 * app.synth();
 */
export * from "./gen/index.js";
