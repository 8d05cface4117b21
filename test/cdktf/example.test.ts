/**
 * examples/cdktf as a user runs it: the app synthesized (once, into a temporary project), then
 * `tgw apply` / `tgw plan` in their own process against the reference server over HTTP. The
 * desired state must equal examples/complete's field by field; references resolve to created ids;
 * constructs removed by a re-synth are deleted in dependency order; lifecycle.preventDestroy holds;
 * the sensitive variable reaches the API and nothing else.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompleteStack } from "../../examples/cdktf/stack.js";
import { loadConfig } from "../../src/config/index.js";
import { tgw } from "../cli/tgw.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const COMPLETE = fileURLToPath(new URL("../../examples/complete", import.meta.url));
const SECRET = "monitoring-key-5b7e0c19d4";

let server: TestServer;
let project: string;
let stackDir: string;
let synthesized: string;
beforeAll(async () => {
  server = await startTestServer();
  project = await mkdtemp(join(tmpdir(), "tgw-cdktf-"));
  const app = new App({ outdir: join(project, "cdktf.out") });
  new CompleteStack(app, "complete-cdktf");
  app.synth();
  stackDir = join(project, "cdktf.out", "stacks", "complete-cdktf");
  synthesized = await readFile(join(stackDir, "cdk.tf.json"), "utf8");
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

const run = (args: string[]) =>
  tgw(args, {
    cwd: project,
    server: { url: server.url, token: server.token },
    env: { TF_VAR_monitoring_api_key: SECRET },
  });

async function get(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${server.token}`, "service-version": "2" },
  });
  return (await res.json()) as Record<string, unknown>;
}

async function stateIds(): Promise<Record<string, string>> {
  const state = JSON.parse(
    await readFile(join(project, ".tgw", "stacks", "complete-cdktf", "state.json"), "utf8"),
  ) as {
    resources: Record<string, { id: string }>;
  };
  return Object.fromEntries(Object.entries(state.resources).map(([a, r]) => [a, r.id]));
}

/** Re-synthesizes the stack without the resources `drop` names (`<type>.<logical id>`). */
async function resynthWithout(...drop: string[]): Promise<void> {
  const json = JSON.parse(synthesized) as { resource: Record<string, Record<string, unknown>> };
  for (const address of drop) {
    const [type = "", name = ""] = address.split(".");
    delete json.resource[type]?.[name];
  }
  await writeFile(join(stackDir, "cdk.tf.json"), JSON.stringify(json, null, 2));
}

describe("examples/cdktf", () => {
  it("is the desired state of examples/complete, field by field", async () => {
    const cdktf = (await loadConfig([stackDir], { env: {} })).desired;
    const yaml = (await loadConfig([COMPLETE], { env: {} })).desired;
    const comparable = (d: typeof cdktf) =>
      d.resources.map((r) => ({
        address: r.address,
        kind: r.kind,
        fields: r.fields,
        pathParams: r.pathParams,
        dependsOn: r.dependsOn,
        prevent_destroy: r.options.prevent_destroy,
      }));
    expect(cdktf.resources.length).toBe(22);
    expect(comparable(cdktf)).toEqual(comparable(yaml));
    expect(cdktf.stack).toBe("complete-cdktf");
    expect(cdktf.configDir).toBe(project);
    expect(cdktf.resources.find((r) => r.address === "edges.tls.edgtls_example01.backend")?.label).toBe(
      "complete-cdktf/traffic/tls_backend",
    );
  });

  it("applies over HTTP, then plans no changes; references are the created ids; the secret goes to the API only", async () => {
    const apply = await run(["apply", "-f", stackDir, "--auto-approve"]);
    expect(apply.stderr).toContain(`Using the API at ${server.url}.`);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain("Apply complete: 22 created");
    expect(apply.stdout).toContain("[complete-cdktf/traffic/tls_backend]");

    const plan = await run(["plan", "-f", stackDir, "--detailed-exitcode"]);
    expect(plan.code).toBe(0);

    const ids = await stateIds();
    const backend = await get("/edges/tls/edgtls_example01/backend");
    expect((backend.backend as { id: string }).id).toBe(ids["tunnel_group_backends.web"]);
    const subscription = await get(`/event_subscriptions/${ids["event_subscriptions.changes"]}`);
    expect((subscription.destinations as { id: string }[]).map((d) => d.id).sort()).toEqual(
      [ids["event_destinations.audit"], ids["event_destinations.monitoring"]].sort(),
    );

    // The sensitive variable's value reached the API, and no output, state or token file.
    const monitoring = await get(`/event_destinations/${ids["event_destinations.monitoring"]}`);
    expect(JSON.stringify(monitoring)).toContain(SECRET);
    const state = await readFile(join(project, ".tgw", "stacks", "complete-cdktf", "state.json"), "utf8");
    for (const text of [apply.stdout, apply.stderr, plan.stdout, plan.stderr, state]) {
      expect(text).not.toContain(SECRET);
    }

    const list = await run(["state", "list", "-f", stackDir]);
    expect(list.stdout).toMatch(/tunnel_group_backends\.web\s+complete-cdktf\/web\s+tunnel_group_backend/);
  });

  it("tgw destroy is refused while a construct has lifecycle.preventDestroy", async () => {
    server.resetRequests();
    const destroy = await run(["destroy", "-f", stackDir, "--auto-approve"]);
    expect(destroy.code).toBe(1);
    expect(destroy.stderr).toContain("tunnel_group_backends.web has prevent_destroy set");
    expect(server.mutations()).toEqual([]);
  });

  it("deletes the constructs a re-synth dropped, referring objects first", async () => {
    const ids = await stateIds();
    await resynthWithout(
      "tunnelgw_event_subscription.changes",
      "tunnelgw_event_subscription.restrictions",
      "tunnelgw_event_destination.audit",
    );
    server.resetRequests();
    const apply = await run(["apply", "-f", stackDir, "--auto-approve"]);
    expect(apply.code).toBe(0);
    const deletes = server.mutations().map((m) => `${m.method} ${m.path}`);
    expect(deletes).toHaveLength(3);
    expect(deletes.indexOf(`DELETE /event_destinations/${ids["event_destinations.audit"]}`)).toBe(2);
    expect((await run(["plan", "-f", stackDir, "--detailed-exitcode"])).code).toBe(0);
  });
});
