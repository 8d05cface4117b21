// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the configuration text holds ${env:...} on purpose
/**
 * `tgw show PLANFILE` (issue 29 §2), as `terraform show [-json] PLANFILE`: a saved plan printed as
 * `tgw plan` printed it (creates, updates, a replace, a delete and a value from the environment,
 * masked), or its JSON plan; it reads no configuration, state or API, and names a file that is not a
 * plan.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { tgw } from "../tgw.js";

const SECRET = "planted-secret-4f1c9a";
let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await mkdtemp(join(tmpdir(), "tgw-show-"));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], cwd = dir) =>
  tgw(args, { cwd, server: { url: server.url, token: server.token }, env: { TGW_VAR_NOTE: SECRET } });

it("prints a saved plan as tgw plan did, or its JSON plan, without reading anything else", async () => {
  const config = join(dir, "tgw.yaml");
  await writeFile(
    config,
    [
      "stack: show",
      "api_keys:",
      "  ci: { description: first }",
      "tunnel_group_backends:",
      "  gone: { description: gone }",
      "  kept: { description: kept }",
      "",
    ].join("\n"),
  );
  expect((await run(["apply", "--auto-approve"])).code).toBe(0);
  await writeFile(
    config,
    [
      "stack: show",
      "api_keys:",
      "  ci: { description: second, owner_id: bot_example01 }",
      "  new: { description: '${env:TGW_VAR_NOTE}' }",
      "tunnel_group_backends:",
      "  kept: { description: changed, labels: { app: web } }",
      "",
    ].join("\n"),
  );
  const planned = await run(["plan", "--out", "saved.plan"]);
  expect(planned.code).toBe(0);
  expect(planned.stdout).toContain("Plan: 1 to create, 1 to update, 1 to replace, 1 to delete.");

  server.resetRequests();
  const elsewhere = await mkdtemp(join(tmpdir(), "tgw-show-elsewhere-"));
  const shown = await run(["show", join(dir, "saved.plan")], elsewhere);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toBe(planned.stdout.replace(/^Saved the plan to .*\n/m, ""));
  expect(shown.stdout).toContain("(sensitive)");
  expect(shown.stdout).not.toContain(SECRET);
  const json = await run(["show", "--json", join(dir, "saved.plan")], elsewhere);
  expect(json.code).toBe(0);
  const saved = JSON.parse(await readFile(join(dir, "saved.plan"), "utf8")) as { plan: unknown };
  expect(JSON.parse(json.stdout)).toEqual(saved.plan);
  expect(json.stdout).not.toContain(SECRET);
  expect(server.requests).toEqual([]);
  await rm(elsewhere, { recursive: true, force: true });

  const notPlan = await run(["show", "tgw.yaml"]);
  expect(notPlan.code).toBe(1);
  expect(notPlan.stderr).toContain("tgw.yaml is not a plan file made by tgw plan --out");
  const cut = { ...saved, plan: undefined };
  await writeFile(join(dir, "cut.plan"), JSON.stringify(cut));
  const damaged = await run(["show", "cut.plan"]);
  expect(damaged.code).toBe(1);
  expect(damaged.stderr).toContain("cut.plan is not a plan file made by tgw plan --out");
  expect(damaged.stderr).not.toContain("    at ");
});
