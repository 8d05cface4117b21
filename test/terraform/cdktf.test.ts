/**
 * examples/cdktf synthesized (as `cdktf synth` does), then applied by the real `terraform` in the stack
 * directory with terraform-provider-tunnelgw, as `cdktf deploy` runs it: a plan afterwards is empty.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompleteStack } from "../../examples/cdktf/stack.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

describe.skipIf(!available)("the synthesized CDKTF example through terraform", () => {
  let server: TestServer;
  let home: TerraformHome;
  let stackDir: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    const app = new App({ outdir: join(home.root, "cdktf.out") });
    new CompleteStack(app, "complete-cdktf");
    app.synth();
    stackDir = join(home.root, "cdktf.out", "stacks", "complete-cdktf");
    // CDKTF's local backend points at the working directory of the synth (here, the repository):
    // keep the state in the temporary stack directory instead.
    const file = join(stackDir, "cdk.tf.json");
    const json = JSON.parse(readFileSync(file, "utf8")) as { terraform: { backend?: unknown } };
    json.terraform.backend = { local: { path: "terraform.tfstate" } };
    writeFileSync(file, JSON.stringify(json, null, 2));
  });
  afterAll(async () => {
    home?.close();
    await server?.close();
  });

  it("applies, then plans no changes", async () => {
    const init = await home.tf(stackDir, "init", "-input=false", "-no-color");
    expect(init.stderr).toBe("");
    const apply = await home.tf(stackDir, ...APPLY);
    expect(apply.stderr).toBe("");
    expect(apply.stdout).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    const plan = await home.tf(stackDir, ...PLAN);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    expect(existsSync(join(stackDir, "terraform.tfstate"))).toBe(true);
    expect(
      existsSync(fileURLToPath(new URL("../../terraform.complete-cdktf.tfstate", import.meta.url))),
    ).toBe(false);
  }, 240_000);
});
