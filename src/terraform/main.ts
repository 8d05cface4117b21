/**
 * Entry point of terraform-provider-tunnelgw (the executable Terraform starts; see ./install.ts for the
 * wrapper). Run by hand, it explains that Terraform starts it; started by Terraform, it prints the
 * go-plugin handshake line and serves until Terraform asks it to shut down.
 */
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, servePlugin } from "./plugin-server.js";
import { TunnelgwProvider } from "./provider.js";

if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
  process.stderr.write(
    "terraform-provider-tunnelgw is a Terraform provider: Terraform starts it. Install it with `tgw terraform install` (docs/terraform.md).\n",
  );
  process.exit(1);
}
const server = await servePlugin(new TunnelgwProvider().handlers());
process.stdout.write(`${server.handshake}\n`);
await server.stopped;
process.exit(0);
