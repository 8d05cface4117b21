/**
 * Issue 27, defect 6a: a TLS certificate's write-only `private_key_pem` is compared by the digest of
 * its PEM text normalised as tgw compares it (line endings, surrounding blank space): a key file
 * that only gained a trailing newline (or CRLFs) plans no change, and other key text plans the replace
 * with `private_key_pem` as the attribute that requires it (`replace_paths` of the JSON plan).
 */
import { createPrivateKey } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();
const KEYS = fileURLToPath(new URL("../../examples/keys/", import.meta.url));

const HCL = `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
resource "tunnelgw_tls_certificate" "app" {
  certificate_pem = file("cert.pem")
  private_key_pem = file("key.pem")
}
`;

describe.skipIf(!available)("terraform: private_key_pem (issue 27)", () => {
  let server: TestServer;
  let home: TerraformHome;

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
  });
  afterAll(async () => {
    home?.close();
    await server?.close();
  });

  it("ignores a trailing newline, and shows what forces the replace of another key", async () => {
    const dir = home.workspace("pem");
    writeFileSync(join(dir, "main.tf"), HCL);
    copyFileSync(join(KEYS, "app.example.com.crt.pem"), join(dir, "cert.pem"));
    const key = readFileSync(join(KEYS, "app.example.com.key.pem"), "utf8");
    writeFileSync(join(dir, "key.pem"), key);
    expect((await home.tf(dir, "init", "-input=false", "-no-color")).code).toBe(0);
    const applied = await home.tf(dir, ...APPLY);
    expect(applied.stderr).toBe("");

    writeFileSync(join(dir, "key.pem"), `${key}\n\r\n`);
    const same = await home.tf(dir, ...PLAN);
    expect(same.stdout).toContain("No changes.");
    expect(same.code).toBe(0);

    // Other key text (the same key as PKCS #1: it must still match the certificate): a replace, and
    // the plan names private_key_pem as the attribute that forces it.
    const pkcs1 = createPrivateKey(key).export({ type: "pkcs1", format: "pem" });
    writeFileSync(join(dir, "key.pem"), pkcs1);
    const other = await home.tf(dir, ...PLAN, "-out=tfplan");
    expect(other.stderr).toBe("");
    expect(other.code).toBe(2);
    expect(other.stdout).toContain("must be replaced");
    const show = await home.tf(dir, "show", "-json", "tfplan");
    const doc = JSON.parse(show.stdout) as {
      resource_changes: { change: { actions: string[]; replace_paths?: string[][] } }[];
    };
    expect(doc.resource_changes[0]?.change).toMatchObject({
      actions: ["delete", "create"],
      replace_paths: [["private_key_pem"]],
    });
  }, 60_000);
});
