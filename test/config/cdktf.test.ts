// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Terraform expressions are written ${...}
/**
 * Reading a synthesized CDKTF stack: what tgw evaluates (references, variables, files, lifecycle,
 * provider settings) and what it refuses, all at once, naming the construct path, the attribute and
 * the expression. One app is synthesized per file, with one stack per case group.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  App,
  Fn,
  TerraformHclModule,
  TerraformIterator,
  TerraformLocal,
  TerraformResource,
  TerraformStack,
  TerraformVariable,
} from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiKey,
  DataTunnelgwIpPolicy,
  IpRestriction,
  TlsEdgeBackend,
  TunnelGroupBackend,
  TunnelgwProvider,
} from "../../src/cdktf/index.js";
import { ConfigError, type ConfigProblem, loadConfig } from "../../src/config/index.js";
import { configDirOf } from "../../src/state/index.js";

let project: string;
const stackDir = (name: string) => join(project, "cdktf.out", "stacks", name);

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "tgw-cdktf-config-"));
  await mkdir(join(project, "files"));
  await writeFile(join(project, "files", "description.txt"), "from a file\n");
  const app = new App({ outdir: join(project, "cdktf.out") });

  const good = new TerraformStack(app, "good");
  new TunnelgwProvider(good, "tunnelgw", { ownership: "state-only", apiUrl: "https://ignored.example" });
  const label = new TerraformVariable(good, "label", { type: "string" });
  const web = new TunnelGroupBackend(good, "web", {
    description: Fn.file("../../../files/description.txt"),
    labels: { app: label.stringValue, tier: `web-${label.stringValue}` },
    lifecycle: { preventDestroy: true, createBeforeDestroy: true },
  });
  new TlsEdgeBackend(good, "tls_backend", { edgeId: "edgtls_example01", backendId: web.id });
  new ApiKey(good, "ci", { metadata: JSON.stringify({ team: "platform" }), tokenFile: "secrets/ci.token" });

  const bad = new TerraformStack(app, "bad");
  new TunnelgwProvider(bad, "tunnelgw");
  const target = new TunnelGroupBackend(bad, "web");
  new ApiKey(bad, "fn", { description: Fn.upper("x") });
  new ApiKey(bad, "local", { description: new TerraformLocal(bad, "env", "prod").asString });
  const policy = new DataTunnelgwIpPolicy(bad, "office", { id: "ipp_example01" });
  new IpRestriction(bad, "data", { type: "api", ipPolicyIds: [policy.id] });
  new ApiKey(bad, "counted", { count: 2 });
  const each = TerraformIterator.fromList(["a", "b"]);
  new ApiKey(bad, "each", { forEach: each, description: each.value });
  new TerraformHclModule(bad, "module", { source: "registry.example/net/vpc" });
  new TerraformResource(bad, "pet", { terraformResourceType: "random_pet" });
  new ApiKey(bad, "uri", { description: target.uri });
  new ApiKey(bad, "embedded", { description: `backend ${target.id}` });
  new ApiKey(bad, "ignored", { lifecycle: { ignoreChanges: ["description"] } });
  const sensitive = new TerraformVariable(bad, "token", {
    type: "string",
    sensitive: true,
    default: "s3cr3t-value",
  });
  new ApiKey(bad, "sensitive", { description: sensitive.stringValue });
  app.synth();
});
afterAll(() => rm(project, { recursive: true, force: true }));

async function problemsOf(name: string): Promise<ConfigProblem[]> {
  try {
    await loadConfig([stackDir(name)], { cwd: project, env: {} });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("a synthesized stack", () => {
  it("becomes a desired state: references, variables, files, lifecycle, tgw settings", async () => {
    const { desired } = await loadConfig([stackDir("good")], {
      cwd: project,
      env: { TF_VAR_label: "green" },
    });
    expect(desired.stack).toBe("good");
    expect(desired.ownership).toBe("state-only");
    expect(desired.configDir).toBe(project);
    expect(configDirOf(stackDir("good"))).toBe(project);
    const byAddress = new Map(desired.resources.map((r) => [r.address, r]));
    expect(byAddress.get("tunnel_group_backends.web")).toMatchObject({
      fields: { description: "from a file", labels: { app: "green", tier: "web-green" } },
      options: { prevent_destroy: true },
      label: "good/web",
    });
    expect(byAddress.get("edges.tls.edgtls_example01.backend")).toMatchObject({
      fields: { backend_id: { $ref: "tunnel_group_backends.web" } },
      pathParams: { edge_id: "edgtls_example01" },
      dependsOn: ["tunnel_group_backends.web"],
    });
    expect(byAddress.get("api_keys.ci")).toMatchObject({
      fields: { metadata: { team: "platform" } },
      options: { token_file: join(project, "secrets", "ci.token") },
    });
    expect(desired.files).toContain(join(project, "files", "description.txt"));
  });

  it("needs a value for every variable it uses", async () => {
    const problems = await problemsOf("good");
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "good/web.labels.app: ${var.label} has no value: set the environment variable TF_VAR_label, or give the variable a default",
      "good/web.labels.tier: ${var.label} has no value: set the environment variable TF_VAR_label, or give the variable a default",
    ]);
  });

  it("refuses every other expression and construct, all at once, naming construct path and attribute", async () => {
    const problems = await problemsOf("bad");
    const lines = problems.map((p) => `${p.path}: ${p.message}`);
    const expected: [string, RegExp][] = [
      ["bad/fn.description", /^\$\{upper\("x"\)\} is a Terraform function \(Fn\.\*\)/],
      ["bad/local.description", /^\$\{local\.env\} is a local value/],
      ["locals.env", /a local value \(TerraformLocal\) is not supported/],
      ["bad/office", /a data source is not supported/],
      ["bad/data.ip_policy_ids[0]", /^\$\{data\.tunnelgw_ip_policy\.office\.id\} is a data source/],
      ["bad/counted.count", /^count is not supported/],
      ["bad/each.for_each", /^for_each is not supported/],
      ["bad/each.description", /^\$\{each\.value\} is count \/ for_each/],
      ["bad/module", /a module call \(TerraformHclModule\) is not supported/],
      ["bad/pet", /a resource of the provider random is not supported/],
      [
        "bad/uri.description",
        /^\$\{tunnelgw_tunnel_group_backend\.web\.uri\} is a reference to the attribute uri/,
      ],
      ["bad/embedded.description", /a reference must be the whole value/],
      ["bad/ignored.lifecycle.ignore_changes", /lifecycle ignore_changes is not supported/],
      [
        "bad/sensitive.description",
        /^\$\{var\.token\} is a sensitive variable, which may only set a secret field/,
      ],
    ];
    for (const [path, message] of expected) {
      const matching = problems.filter((p) => p.path === path && message.test(p.message));
      expect(matching, `${path} ${message}\n${lines.join("\n")}`).toHaveLength(1);
      expect(matching[0]?.file).toBe(join("cdktf.out", "stacks", "bad", "cdk.tf.json"));
      expect(matching[0]?.line).toBeGreaterThan(0);
    }
    expect(lines.join("\n")).not.toContain("s3cr3t-value");
  });
});
