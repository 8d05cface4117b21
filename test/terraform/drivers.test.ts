/**
 * Issue 27, defect 5: a stack applied with Terraform (and this provider) is refused by `tgw plan`
 * and `tgw apply` instead of being created a second time. The Terraform working directory is named
 * `web`, so the provider's default `stack` is `web-<8 hex>` (what `cdktf deploy` gives a CDKTF stack
 * named `web`, in cdktf.out/stacks/web); the tgw configuration is the YAML stack `web`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tgw } from "../cli/tgw.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

const HCL = `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
resource "tunnelgw_tunnel_group_backend" "a" {
  description = "backend a"
}
resource "tunnelgw_tunnel_group_backend" "b" {
  description = "backend b"
}
`;

/** The same two backends as a tgw configuration of stack `stack`. */
const yaml = (stack: string) =>
  `stack: ${stack}\ntunnel_group_backends:\n  a:\n    description: backend a\n  b:\n    description: backend b\n`;

describe.skipIf(!available)("tgw on a stack that Terraform applies (issue 27)", () => {
  let server: TestServer;
  let home: TerraformHome;
  let configDir: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    configDir = await mkdtemp(join(tmpdir(), "tgw-drivers-"));
  });
  afterAll(async () => {
    home?.close();
    await server?.close();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  const run = (args: string[]) =>
    tgw(args, { cwd: configDir, server: { url: server.url, token: server.token } });

  it("refuses to create again what Terraform created, naming the driver; other stacks are not affected", async () => {
    const dir = home.workspace("web");
    await writeFile(join(dir, "main.tf"), HCL);
    expect((await home.tf(dir, "init", "-input=false", "-no-color")).code).toBe(0);
    const applied = await home.tf(dir, ...APPLY);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toContain("Resources: 2 added");

    await writeFile(join(configDir, "tgw.yaml"), yaml("web"));
    server.resetRequests();
    for (const command of [["plan"], ["apply", "--auto-approve"]]) {
      const refused = await run([...command, "-f", "."]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /2 objects of this stack \(tunnel_group_backend\) were created by Terraform \(markers terraform:web-[0-9a-f]{8}\/default\): this stack is applied with terraform \/ cdktf deploy; tgw would create them again\. Plan it with terraform, or move it to tgw/,
      );
    }
    expect(server.mutations()).toEqual([]);

    // The override, and a stack of another name, plan their creates as before.
    const allowed = await run(["plan", "-f", ".", "--allow-terraform-objects", "--detailed-exitcode"]);
    expect(allowed.stderr).not.toContain("refused");
    expect(allowed.code).toBe(2);
    await writeFile(join(configDir, "tgw.yaml"), yaml("webapp"));
    const other = await run(["plan", "-f", ".", "--detailed-exitcode"]);
    expect(other.stderr).not.toContain("refused");
    expect(other.code).toBe(2);
    expect(server.mutations()).toEqual([]);
  }, 60_000);
});
