/**
 * The pieces of the provider below Terraform: `tgw terraform install` (the mirror layout, the
 * launcher, the .terraformrc lines), a bundled install whose hash is the same from two places
 * (`terraform providers lock`), the launcher refusing to run without Terraform's cookie, the
 * go-plugin handshake line with mutual TLS, and msgpack values with unknowns.
 */
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CtyType, decodeValue, encodeValue, UNKNOWN } from "../../src/terraform/cty.js";
import { installProvider } from "../../src/terraform/install.js";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../src/terraform/plugin-server.js";
import { selfSignedCertificate } from "../../src/terraform/tls.js";
import { tgw } from "../cli/tgw.js";
import { PROVIDER_BUNDLE, TerraformHome, terraformAvailable } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "tgw-tf-install-"));
const wrapper = join(
  dir,
  "mirror/registry.terraform.io/tunnelgw/tunnelgw/0.1.0",
  `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`,
  "terraform-provider-tunnelgw_v0.1.0",
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; firstLine: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(wrapper, [], { env: { ...process.env, ...env } });
    let out = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) child.kill();
    });
    child.on("close", (code) => resolve({ code, firstLine: out.split("\n")[0] ?? "", stderr }));
  });
}

describe("tgw terraform install", () => {
  it("writes the executable launcher into the mirror and prints the .terraformrc lines", async () => {
    const result = await tgw(["terraform", "install", "--dir", join(dir, "mirror")], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`path    = ${JSON.stringify(join(dir, "mirror"))}`);
    expect(result.stdout).toContain('include = ["registry.terraform.io/tunnelgw/tunnelgw"]');
    expect(existsSync(wrapper)).toBe(true);
    expect(statSync(wrapper).mode & 0o111).toBe(0o111);
  }, 60_000);

  it.skipIf(!terraformAvailable())(
    "installs the bundle with a launcher naming no path: two installs, one hash (terraform providers lock)",
    async () => {
      const installs = ["machine-a/plugins", "elsewhere/b/mirror"].map((m) =>
        installProvider(join(dir, m), PROVIDER_BUNDLE),
      );
      const folder = dirname(installs[0]?.executable ?? "");
      expect(readdirSync(folder).sort()).toEqual([
        "launch.cjs",
        "provider-schema.gen.json",
        "provider.cjs",
        "terraform-provider-tunnelgw_v0.1.0",
      ]);
      const launcher = readFileSync(installs[0]?.executable ?? "", "utf8");
      expect(launcher).toBe('#!/bin/sh\nexec node "$(dirname "$0")/launch.cjs" "$@"\n');
      const home = new TerraformHome("http://127.0.0.1:1", "unused");
      const locks = installs.map((install, i) => {
        const ws = home.workspace(`lock-${i}`);
        writeFileSync(
          join(ws, "main.tf"),
          'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}\n',
        );
        return { ws, mirror: install.dir };
      });
      const hashes: string[] = [];
      for (const { ws, mirror } of locks) {
        const r = await home.tf(ws, "providers", "lock", `-fs-mirror=${mirror}`, "-no-color");
        expect(r.code, r.stderr).toBe(0);
        const lock = readFileSync(join(ws, ".terraform.lock.hcl"), "utf8");
        hashes.push(/"h1:[^"]+"/.exec(lock)?.[0] ?? "none");
      }
      expect(hashes[0]).toMatch(/^"h1:/);
      expect(hashes[1]).toBe(hashes[0]);
      home.close();
    },
    120_000,
  );

  it("refuses to run without Terraform's cookie, and shakes hands with it (mutual TLS)", async () => {
    const alone = await run({ [MAGIC_COOKIE_KEY]: "" });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain("Terraform starts it");
    const client = selfSignedCertificate("localhost");
    const started = await run({ [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_CLIENT_CERT: client.certPem });
    const parts = started.firstLine.split("|");
    expect(parts.slice(0, 3)).toEqual(["1", "6", "unix"]);
    expect(parts[4]).toBe("grpc");
    const cert = new X509Certificate(Buffer.from(parts[5] ?? "", "base64"));
    expect(cert.subjectAltName).toBe("DNS:localhost");
    expect(parts[5]).not.toMatch(/=$/);
  }, 60_000);
});

describe("msgpack values", () => {
  it("writes every attribute of an object type, and an unknown as extension type 0", () => {
    const type: CtyType = ["object", { id: "string", n: "number", tags: ["set", "string"] }];
    const bytes = encodeValue(type, { id: UNKNOWN, n: 3 });
    expect(Buffer.from(bytes).includes(Buffer.from([0xd4, 0, 0]))).toBe(true);
    expect(decodeValue(bytes)).toEqual({ id: UNKNOWN, n: 3, tags: null });
  });

  it("reads an unknown with refinements (extension type 12) as unknown", () => {
    expect(decodeValue(new Uint8Array([0xd4, 12, 0]))).toBe(UNKNOWN);
  });
});
