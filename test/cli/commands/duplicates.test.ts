/**
 * Two live objects carrying one address's ownership marker, through the CLI: the object of the
 * address's own kind is the one kept, even when the other (a marker copied by hand onto an object of
 * another kind) is older. A working API key is never deleted and replaced by a new one.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-dup-", { per: "file" });
beforeAll(() => writeFile(join(ctx.dir, "tgw.yaml"), "stack: dup\napi_keys:\n  a: {description: the key}\n"));

const run = ctx.run;
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${ctx.server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ctx.server.token}`,
      "service-version": "2",
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as { id: string } };
};

it("adopts the key, never an older object of another kind carrying a copy of its marker, which is left alone", async () => {
  // An older backend whose metadata was copied from the key's marker by hand.
  const marker = JSON.stringify({ tgw: { address: "api_keys.a", stack: "dup" } });
  const backend = (await call("POST", "/backends/tunnel_group", { metadata: marker })).body.id;
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const keys = (await call("GET", "/api_keys")).body as unknown as {
    keys: { id: string; metadata: string }[];
  };
  const key = keys.keys.find((k) => k.metadata.includes("api_keys.a"))?.id as string;
  expect(key).toMatch(/^ak_/);

  // The state is lost: --takeover rebuilds it from the markers.
  await rm(join(ctx.dir, ".tgw", "state.json"));
  const plan = await run("plan", "--takeover");
  expect(plan.stdout).not.toContain("duplicate");
  expect(plan.stdout).not.toMatch(/\+ api_keys\.a /);
  const applied = await run("apply", "--auto-approve", "--takeover");
  expect(applied.code).toBe(0);
  expect(applied.stderr).toContain(`api_keys.a (${backend}); left alone`);
  expect((await call("GET", `/api_keys/${key}`)).status).toBe(200);
  expect((await call("GET", `/backends/tunnel_group/${backend}`)).status).toBe(200);
  const again = await run("plan", "--detailed-exitcode");
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
});
