/**
 * Saved plans (`tgw plan --out FILE`, `tgw apply FILE`): applied exactly when nothing changed, refused
 * when the live state, the state or the configuration changed since; they hold no secret.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await manyBackends(3, "saved");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[]) => tgw(args, { cwd: dir, server: { url: server.url, token: server.token } });

describe("saved plans", () => {
  it("applies a saved plan exactly, without asking", async () => {
    const planned = await run(["plan", "-f", ".", "--out", "tgw.plan"]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain("Saved the plan to tgw.plan; apply it with: tgw apply tgw.plan");
    server.resetRequests();
    const applied = await run(["apply", "tgw.plan"]);
    expect(applied.code).toBe(0);
    expect(server.mutations().map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    // Applied once: the state moved on, so the same file is now stale.
    server.resetRequests();
    const again = await run(["apply", "tgw.plan"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      "Error [stale_plan]: the saved plan is stale: the state changed since the plan was made (serial 0, now",
    );
    expect(server.mutations()).toEqual([]);
  });

  it("refuses a saved plan when live state changed behind it", async () => {
    await writeFile(
      join(dir, "tgw.yaml"),
      (await readFile(join(dir, "tgw.yaml"), "utf8")).replace("backend 0", "first"),
    );
    expect((await run(["plan", "-f", ".", "--out", "tgw.plan"])).code).toBe(0);
    const saved = await readFile(join(dir, "tgw.plan"), "utf8");
    expect(JSON.parse(saved).plan.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 0 });
    const [one] = await listBackends();
    await fetch(`${server.url}/backends/tunnel_group/${one?.id}`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${server.token}`,
        "service-version": "2",
        "content-type": "application/json",
      },
      body: JSON.stringify({ description: "changed by hand" }),
    });
    server.resetRequests();
    const refused = await run(["apply", "tgw.plan"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "the saved plan is stale: the live state changed since the plan was made. Run tgw plan again.",
    );
    expect(server.mutations()).toEqual([]);
  });

  it("refuses a saved plan when the configuration changed", async () => {
    expect((await run(["plan", "-f", ".", "--out", "tgw.plan"])).code).toBe(0);
    await writeFile(
      join(dir, "tgw.yaml"),
      (await readFile(join(dir, "tgw.yaml"), "utf8")).replace("backend 1", "second"),
    );
    const refused = await run(["apply", "tgw.plan"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the configuration changed since the plan was made");
  });

  it("--max-deletes refuses a plan with more deletions, and prints the plan first", async () => {
    await writeFile(
      join(dir, "tgw.yaml"),
      "stack: saved\ntunnel_group_backends:\n  b000:\n    description: first\n",
    );
    const out = await run(["plan", "-f", ".", "--max-deletes", "1", "--detailed-exitcode"]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/Plan: 0 to create, \d to update, 0 to replace, 2 to delete\./);
    expect(out.stderr).toContain(
      "Error [unsafe_plan]: the plan is refused: the plan deletes 2 objects, more than --max-deletes 1 (use --force to allow)",
    );
  });
});

async function listBackends(): Promise<{ id: string; description: string }[]> {
  const res = await fetch(`${server.url}/backends/tunnel_group`, {
    headers: { authorization: `Bearer ${server.token}`, "service-version": "2" },
  });
  return ((await res.json()) as { backends: { id: string; description: string }[] }).backends;
}
