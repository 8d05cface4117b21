/**
 * Entry point of terraform-provider-tunnelgw (the executable Terraform starts; see ./install.ts for the
 * wrapper). Run by hand, it explains that Terraform starts it; started by Terraform, it prints the
 * go-plugin handshake line and serves until Terraform asks it to shut down, or Terraform is gone.
 */
import {
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  PROVIDER_RPCS,
  type ProviderHandlers,
  servePlugin,
} from "./plugin-server.js";
import { loadProviderSchema, schemaResponse } from "./schema.js";

/** Serves until Terraform stops the provider, or is gone; then exits. */
async function main(): Promise<void> {
  if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    process.stderr.write(
      "terraform-provider-tunnelgw is a Terraform provider: Terraform starts it. Install it with `tgw terraform install` (docs/terraform.md).\n",
    );
    process.exit(1);
  }
  const server = await servePlugin(lazyHandlers());
  process.stdout.write(`${server.handshake}\n`);
  // Terraform ends its providers with Shutdown or a kill; when Terraform itself is killed (SIGKILL, a
  // crash) neither comes, and a provider left serving outlives it for good (issue 27, defect 4). The
  // launcher execs Node, so the parent is Terraform: once it is gone (re-parented), exit. Polled, as
  // stdin is Terraform's own and stays open while whatever started Terraform holds it.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void server.stop(true).finally(() => process.exit(1));
  }, 250).unref();
  await server.stopped;
  process.exit(0);
}

/**
 * The provider's handlers, its code (engine, client, validation) loaded at the first call that needs
 * it: Terraform starts the provider three times per plan, and the first start only asks for the
 * schema, which needs none of it (issue 27 §2.4; bench/README.md).
 */
function lazyHandlers(): ProviderHandlers {
  let provider: Promise<ProviderHandlers> | undefined;
  const load = () => (provider ??= import("./provider.js").then((m) => new m.TunnelgwProvider().handlers()));
  const out: ProviderHandlers = {};
  for (const name of PROVIDER_RPCS) {
    out[name] = async (request) => {
      const handler = (await load())[name];
      if (!handler) throw new Error(`the provider has no handler for ${name}`);
      return handler(request);
    };
  }
  out.GetProviderSchema = () => schemaResponse(loadProviderSchema());
  return out;
}

// No top-level await: the installed provider is a CommonJS bundle (scripts/bundle.ts).
void main();
