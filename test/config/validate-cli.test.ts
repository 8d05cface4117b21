/**
 * `tgw validate` end to end: the real CLI in a child process, its exit code and its output.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tgw as runTgw } from "../cli/tgw.js";
import { writeTree, yaml } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** `tgw args...` in `cwd` (default: the repository's root). */
const tgw = (args: string[], cwd = ROOT) => runTgw(args, { cwd });

const broken = {
  "a.yaml": yaml(
    "api_keys:",
    "  ci:",
    "    descripton: deploys",
    "edges:",
    "  tls:",
    "    edgtls_1:",
    "      backend: {backend_id: '${ref:tunnel_group_backends.web}'}",
    "      mutual_tls: {certificate_authority_ids: ['${env:TGW_VAR_CA_ID}']}",
  ),
};
const brokenLines = [
  "a.yaml:3:5: api_keys.ci.descripton: unknown field of an API key (did you mean description?); expected description, metadata, owner_id, prevent_destroy, token_file or token_kept_elsewhere",
  "a.yaml:7:29: edges.tls.edgtls_1.backend.backend_id: ${ref:tunnel_group_backends.web}: no tunnel group backend named web in the configuration",
  "a.yaml:8:48: edges.tls.edgtls_1.mutual_tls.certificate_authority_ids[0]: environment variable TGW_VAR_CA_ID is not set",
];

describe("tgw validate", () => {
  it("prints a one-line summary and exits 0 for a valid configuration", async () => {
    const run = await tgw(["validate", "-f", "examples/complete"]);
    expect(run).toEqual({
      code: 0,
      signal: null,
      stdout: "valid: 13 resources, 9 modules in 4 files\n",
      stderr: "",
    });
  });

  it("prints every problem as file:line:col: path: message and exits 1, without a stack trace", async () => {
    const run = await tgw(["validate"], writeTree(broken));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`Error [config]: 3 problems in the configuration:\n${brokenLines.join("\n")}\n`);
  });

  it("--json reports problems as data on stdout (and exits 1)", async () => {
    const run = await tgw(["validate", "--json", "-f", "."], writeTree(broken));
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.valid).toBe(false);
    expect(out.problems[0]).toEqual({
      file: "a.yaml",
      line: 3,
      col: 5,
      path: "api_keys.ci.descripton",
      message: expect.stringMatching(/^unknown field of an API key/),
    });
    expect(out.problems).toHaveLength(3);
  });

  it("--json summarises a valid configuration read from several -f paths", async () => {
    const cwd = writeTree({
      "base/a.yaml": yaml("stack: demo", "tunnel_group_backends:", "  web: {labels: {app: web}}"),
      "extra.yaml": yaml(
        "edges:",
        "  tcp:",
        "    edgtcp_1:",
        "      backend: {backend_id: '${ref:tunnel_group_backends.web}'}",
      ),
    });
    const run = await tgw(["validate", "--json", "-f", "base", "-f", "extra.yaml"], cwd);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      valid: true,
      stack: "demo",
      ownership: "marker",
      resources: 1,
      modules: 1,
      files: ["base/a.yaml", "extra.yaml"],
      addresses: ["edges.tcp.edgtcp_1.backend", "tunnel_group_backends.web"],
    });
  });

  it("refuses a file of more than 200,000 YAML nodes within little memory (200,000 keys, 12.8 MB)", async () => {
    const lines = ["stack: huge", "api_keys:"];
    for (let i = 0; i < 200_000; i++)
      lines.push(`  key${i}:`, `    description: the key number ${i} of the stack`);
    const cwd = writeTree({ "tgw.yaml": `${lines.join("\n")}\n` });
    // Read whole by the `yaml` package first, the file took about 700 MB (and 18 s): a heap of 256 MB
    // ran out. Counted as it is read, it is refused halfway.
    const run = await runTgw(["validate", "-f", "."], {
      cwd,
      env: { NODE_OPTIONS: "--max-old-space-size=256" },
    });
    expect(run.stderr).toMatch(/^tgw\.yaml:\d+:\d+: the file holds more than 200,000 YAML nodes .*split it/m);
    expect(run.code).toBe(1);
  }, 60_000);
});
