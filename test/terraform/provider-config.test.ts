/**
 * Issue 27, defect 6b: `terraform validate` checks the provider block: a bad `ownership` is an error
 * at the attribute, naming the allowed values; the allowed values validate.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

const config = (ownership: string) => `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
provider "tunnelgw" {
  ownership = "${ownership}"
}
resource "tunnelgw_tunnel_group_backend" "a" {}
`;

describe.skipIf(!available)("terraform validate: the provider block (issue 27)", () => {
  let home: TerraformHome;
  let dir: string;

  beforeAll(async () => {
    // validate calls no API: the URL is never used.
    home = new TerraformHome("http://127.0.0.1:9", "unused");
    dir = home.workspace("config");
    writeFileSync(join(dir, "main.tf"), config("marker"));
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
  }, 60_000);
  afterAll(() => home?.close());

  it("refuses a bad ownership, naming the attribute and the allowed values", async () => {
    writeFileSync(join(dir, "main.tf"), config("markers"));
    const bad = await home.tf(dir, "validate", "-no-color");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Error: Invalid ownership");
    expect(bad.stderr).toContain('ownership = "markers"');
    expect(bad.stderr).toContain('ownership must be "marker" or "state-only", not "markers"');
    for (const ok of ["marker", "state-only"]) {
      writeFileSync(join(dir, "main.tf"), config(ok));
      const good = await home.tf(dir, "validate", "-no-color");
      expect(good.stderr).toBe("");
      expect(good.code).toBe(0);
    }
  }, 60_000);
});
