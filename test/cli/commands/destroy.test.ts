/**
 * `tgw destroy` and `tgw import` as users run them: destroy honours prevent_destroy and deletes every
 * object of the stack; import adopts an object made by hand, after which plan shows updates, not a
 * create.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await manyBackends(3, "gone");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[]) => tgw(args, { cwd: dir, server: { url: server.url, token: server.token } });
const api = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.token}`,
      "service-version": "2",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);

describe("destroy", () => {
  it("refuses while a resource has prevent_destroy, then deletes every object of the stack", async () => {
    const config = join(dir, "tgw.yaml");
    await writeFile(
      config,
      "stack: gone\ntunnel_group_backends:\n  a:\n    description: a\n    prevent_destroy: true\n  b:\n    description: b\n",
    );
    expect((await run(["apply", "-f", ".", "--auto-approve"])).code).toBe(0);
    server.resetRequests();
    const refused = await run(["destroy", "-f", ".", "--auto-approve"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.");
    expect(refused.stderr).toContain(
      "Error [unsafe_plan]: the plan is refused: tunnel_group_backends.a has prevent_destroy set but the plan would delete it",
    );
    expect(server.mutations()).toEqual([]);

    await writeFile(
      config,
      "stack: gone\ntunnel_group_backends:\n  a:\n    description: a\n  b:\n    description: b\n",
    );
    // Without a terminal and --auto-approve, the refusal names the command that cannot ask.
    const unasked = await run(["destroy", "-f", "."]);
    expect(unasked.code).toBe(1);
    expect(unasked.stderr).toContain("stdin is not a terminal, so destroy cannot ask for confirmation");
    expect(server.mutations()).toEqual([]);
    const destroyed = await run(["destroy", "-f", ".", "--auto-approve"]);
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain("tgw will perform the following actions (destroy):");
    expect(destroyed.stdout).toContain("Destroy complete: 2 deleted.");
    expect(server.mutations().map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
    const plan = await run(["plan", "-f", ".", "--detailed-exitcode"]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("plan --destroy --out saves a destroy plan that tgw apply FILE applies, as Terraform's plan -destroy", async () => {
    const config = join(dir, "tgw.yaml");
    const before = await readFile(config, "utf8");
    onTestFinished(() => writeFile(config, before)); // the import test below reads it
    await writeFile(config, "stack: gone\ntunnel_group_backends:\n  c:\n    description: c\n");
    expect((await run(["apply", "-f", ".", "--auto-approve"])).code).toBe(0);
    const planned = await run(["plan", "-f", ".", "--destroy", "--out", "gone.plan", "--detailed-exitcode"]);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain("0 to create, 0 to update, 0 to replace, 1 to delete.");
    server.resetRequests();
    const applied = await run(["apply", "gone.plan"]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Destroy complete: 1 deleted.");
    expect(server.mutations().map((r) => r.method)).toEqual(["DELETE"]);
  });
});

describe("import", () => {
  it("adopts an object made by hand: plan then shows an update, not a create", async () => {
    const made = await api("POST", "/backends/tunnel_group", { description: "made by hand" });
    const out = await run(["import", "-f", ".", "tunnel_group_backends.a", String(made.id)]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`tunnel_group_backends.a: imported ${made.id} (ownership marker written)`);
    const plan = await run(["plan", "-f", ".", "--json"]);
    const change = JSON.parse(plan.stdout).changes.find(
      (c: { address: string }) => c.address === "tunnel_group_backends.a",
    );
    expect(change).toMatchObject({ action: "update", id: made.id, changed_fields: ["description"] });
    const wrong = await run(["import", "-f", ".", "tunnel_group_backends.b", "ak_123"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("Error [import]: ak_123 is not the id of a Tunnel group backend");
  });
});
