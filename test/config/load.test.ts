/**
 * What a valid configuration becomes: the DesiredState the engine builds against (src/model/desired.ts).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDesiredState } from "../../src/config/index.js";
import { KEYS, load, writeTree, yaml } from "./helpers.js";

const ed25519 = readFileSync(`${KEYS}deploy_ed25519.pub`, "utf8");

describe("loadDesiredState", () => {
  it("merges a directory's files into one desired state, sorted by address, refs kept symbolic", async () => {
    const cwd = writeTree(
      {
        "b.yaml": yaml(
          "edges:",
          "  tls:",
          "    edgtls_abc:",
          "      backend: {backend_id: '${ref:tunnel_group_backends.web}'}",
          "event_subscriptions:",
          "  all:",
          "    sources: [{type: api_key_created.v0}]",
          "    destination_ids: ['${ref:event_destinations.audit}', ed_literal1]",
        ),
        "a.yml": yaml(
          "tunnel_group_backends:",
          "  web:",
          "    labels: {app: web}",
          "    prevent_destroy: true",
          "event_destinations:",
          "  audit: {format: json, target: {monitoring_target: {api_key: '${env:TGW_VAR_MON_KEY}'}}}",
        ),
        "notes.txt": "not configuration\n",
        ".hidden.yaml": "not: read\n",
      },
      "platform",
    );
    const desired = await loadDesiredState([], { cwd, env: { TGW_VAR_MON_KEY: "k-123" } });
    expect(desired.stack).toBe("platform");
    expect(desired.ownership).toBe("marker");
    expect(desired.configDir).toBe(cwd);
    expect(desired.files).toEqual([join(cwd, "a.yml"), join(cwd, "b.yaml")]);
    expect(desired.resources.map((r) => r.address)).toEqual([
      "edges.tls.edgtls_abc.backend",
      "event_destinations.audit",
      "event_subscriptions.all",
      "tunnel_group_backends.web",
    ]);
    const [backend, audit, all, web] = desired.resources;
    expect(backend).toEqual({
      address: "edges.tls.edgtls_abc.backend",
      kind: "tls_edge_backend",
      fields: { backend_id: { $ref: "tunnel_group_backends.web" } },
      options: { prevent_destroy: false },
      pathParams: { edge_id: "edgtls_abc" },
      dependsOn: ["tunnel_group_backends.web"],
      source: { file: "b.yaml", line: 4, col: 7 },
    });
    expect(audit?.fields.target).toEqual({ monitoring_target: { api_key: "k-123" } });
    expect(all?.fields.destination_ids).toEqual([{ $ref: "event_destinations.audit" }, "ed_literal1"]);
    expect(all?.dependsOn).toEqual(["event_destinations.audit"]);
    expect(web?.options).toEqual({ prevent_destroy: true });
    expect(web?.fields).toEqual({ labels: { app: "web" } });
  });

  it("keeps metadata as written and fills the token file default under the configuration directory", async () => {
    const desired = await load({
      "a.yaml": yaml(
        "stack: prod",
        "ownership: state-only",
        "api_keys:",
        "  ci:",
        "    metadata: {team: infra, tier: 1}",
        "  cd:",
        "    metadata: plain text",
        "    token_file: ../tokens/cd.token",
      ),
    });
    expect(desired.stack).toBe("prod");
    expect(desired.ownership).toBe("state-only");
    const [cd, ci] = desired.resources;
    expect(ci?.fields.metadata).toEqual({ team: "infra", tier: 1 });
    expect(ci?.options.token_file).toBe(join(desired.configDir, ".tgw", "secrets", "ci.token"));
    expect(cd?.fields.metadata).toBe("plain text");
    expect(cd?.options.token_file).toBe(join(desired.configDir, "..", "tokens", "cd.token"));
  });

  it("reads ${file:} relative to the YAML file, trims trailing line breaks and records the file", async () => {
    const cwd = writeTree({
      "conf/a.yaml": yaml("ssh_credentials:", "  deploy:", "    public_key: ${file:keys/deploy.pub}"),
      "conf/keys/deploy.pub": `${ed25519}\n\n`,
    });
    const desired = await loadDesiredState(["conf"], { cwd, env: {} });
    expect(desired.resources[0]?.fields.public_key).toBe(ed25519.trimEnd());
    expect(desired.files).toEqual([join(cwd, "conf/a.yaml"), join(cwd, "conf/keys/deploy.pub")]);
    expect(desired.configDir).toBe(join(cwd, "conf"));
    expect(desired.stack).toBe("conf");
  });

  it("resolves one ${file:} argument written in files of two directories to each directory's file", async () => {
    // Paths of ${file:} are kept per load by directory and argument (src/config/interpolate.ts).
    const other = ed25519.trimEnd().replace(/ \S+$/, " other");
    const cwd = writeTree({
      "conf/a.yaml": yaml(
        "ssh_credentials:",
        "  one:",
        "    public_key: ${file:deploy.pub}",
        "  two:",
        "    public_key: ${file:deploy.pub}",
      ),
      "conf/deploy.pub": `${ed25519}\n`,
      "conf/sub/b.yaml": yaml("ssh_credentials:", "  three:", "    public_key: ${file:deploy.pub}"),
      "conf/sub/deploy.pub": `${other}\n`,
    });
    const desired = await loadDesiredState(["conf", "conf/sub"], { cwd, env: {} });
    const keys = Object.fromEntries(desired.resources.map((r) => [r.address, r.fields.public_key]));
    expect(keys).toEqual({
      "ssh_credentials.one": ed25519.trimEnd(),
      "ssh_credentials.two": ed25519.trimEnd(),
      "ssh_credentials.three": other,
    });
    expect(desired.files).toContain(join(cwd, "conf/sub/deploy.pub"));
    expect(desired.files).toContain(join(cwd, "conf/deploy.pub"));
  });

  it("substitutes env in part of a string, and $${ is a literal ${", async () => {
    const desired = await load(
      {
        "a.yaml": yaml(
          "api_keys:",
          "  ci:",
          "    description: 'for ${env:TGW_VAR_TEAM}: costs $${n} and $5'",
        ),
      },
      { env: { TGW_VAR_TEAM: "infra" } },
    );
    expect(desired.resources[0]?.fields.description).toBe("for infra: costs ${n} and $5");
  });

  it("expands YAML anchors and merge keys, explicit keys winning", async () => {
    const desired = await load({
      "a.yaml": yaml(
        "x-base: &base {description: shared, labels: {team: web}}",
        "tunnel_group_backends:",
        "  one: {<<: *base, description: own}",
        "  two: *base",
      ),
    });
    expect(desired.resources.map((r) => r.fields)).toEqual([
      { description: "own", labels: { team: "web" } },
      { description: "shared", labels: { team: "web" } },
    ]);
  });

  it("treats an empty resource or module as one with no fields, and accepts an empty file", async () => {
    const desired = await load({
      "a.yaml": yaml(
        "api_keys:",
        "  ci:",
        "edges:",
        "  https:",
        "    edghts_1:",
        "      routes:",
        "        edghtsrt_1:",
        "          compression:",
      ),
      "b.yaml": "# nothing yet\n",
    });
    expect(desired.resources.map((r) => [r.address, r.fields])).toEqual([
      ["api_keys.ci", {}],
      ["edges.https.edghts_1.routes.edghtsrt_1.compression", {}],
    ]);
  });

  it("reads several -f paths, files and directories, each file once", async () => {
    const cwd = writeTree({
      "base/a.yaml": yaml("tunnel_group_backends:", "  web: {}"),
      "extra.yaml": yaml("api_keys:", "  ci: {}"),
    });
    const desired = await loadDesiredState(["base", "extra.yaml", "base/a.yaml"], { cwd, env: {} });
    expect(desired.resources.map((r) => r.address)).toEqual(["api_keys.ci", "tunnel_group_backends.web"]);
    expect(desired.stack).toBe("base");
  });
});
