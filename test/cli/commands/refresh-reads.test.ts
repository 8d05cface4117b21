/**
 * What a plan reads (docs/state.md > What a refresh reads), through the CLI against the reference
 * server's request log: one GET for one resource of a kind the account holds 1,113 of (issue 30 §2);
 * and the kind listed whole again whenever an object carrying the stack's marker may lack a record
 * (after creates, `tgw state rm`, a state file put back by hand), so that none is lost track of.
 */
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import pLimit from "p-limit";
import { beforeAll, expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-reads-", { per: "file" });
const UNMANAGED = 1_112;

/** The requests the server saw since the last call, as `METHOD /path` (ids kept), then forgets them. */
function takeRequests(): string[] {
  const seen = ctx.server.requests.map((r) => `${r.method} ${r.path}`);
  ctx.server.resetRequests();
  return seen;
}

const keys = (...names: string[]) =>
  `stack: reads\napi_keys:\n${names.map((n) => `  ${n}: {description: ${n}}\n`).join("")}`;

beforeAll(async () => {
  // The account holds 1,112 keys this stack does not manage: with the stack's key, 1,113 (12 pages).
  const limit = pLimit(8);
  await Promise.all(
    Array.from({ length: UNMANAGED }, (_, i) =>
      limit(() => ctx.api("POST", "/api_keys", { description: `other ${i}` })),
    ),
  );
}, 60_000);

it("reads one resource of a kind holding 1,113 objects with one GET once its kind was listed after the create", async () => {
  await ctx.configure(keys("a"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const id = (await ctx.records())["api_keys.a"]?.id as string;
  // The apply created an API key: the next run lists the kind (a duplicate made meanwhile would show).
  takeRequests();
  const second = await ctx.run("apply", "--auto-approve");
  expect(second.code).toBe(0);
  expect(takeRequests().filter((r) => r.startsWith("GET /api_keys")).length).toBeGreaterThanOrEqual(12);
  const plan = await ctx.run("plan", "--detailed-exitcode");
  expect(plan.stdout).toContain("No changes.");
  expect(plan.code).toBe(0);
  expect(takeRequests()).toEqual([`GET /api_keys/${id}`]);
});

it("lists the kind after `tgw state rm`, so that the forgotten object is pruned when the configuration drops it", async () => {
  await ctx.configure(keys("a", "b"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const b = (await ctx.records())["api_keys.b"]?.id as string;
  expect((await ctx.run("state", "rm", "api_keys.b")).code).toBe(0);
  await ctx.configure(keys("a"));
  const plan = await ctx.run("plan");
  expect(plan.stdout).toMatch(/- api_keys\.b \(api_key\)/);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.api("GET", `/api_keys/${b}`)).status).toBe(404);
});

it("lists every kind after a state file is put back by hand, so that objects created since are found", async () => {
  await ctx.configure(keys("a"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const statePath = join(ctx.dir, ".tgw", "state.json");
  await copyFile(statePath, join(ctx.dir, "copy.json"));
  await ctx.configure(keys("a", "c"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const c = (await ctx.records())["api_keys.c"]?.id as string;
  // The copy from before `c` is put back, and `c` leaves the configuration.
  await copyFile(join(ctx.dir, "copy.json"), statePath);
  await ctx.configure(keys("a"));
  const plan = await ctx.run("plan");
  expect(plan.stdout).toMatch(/- api_keys\.c \(api_key\)/);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.api("GET", `/api_keys/${c}`)).status).toBe(404);
  const after = await ctx.run("plan", "--detailed-exitcode");
  expect(after.code).toBe(0);
});

it("lists the kind when a recorded object is gone, so that an object another workspace made for the address is adopted, not doubled", async () => {
  await ctx.configure(keys("a"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const old = (await ctx.records())["api_keys.a"]?.id as string;
  // Deleted by hand; another checkout (its own state) made the address's object again.
  expect((await ctx.api("DELETE", `/api_keys/${old}`)).status).toBe(204);
  const marker = JSON.stringify({ tgw: { stack: "reads", address: "api_keys.a" } });
  const made = (await ctx.api("POST", "/api_keys", { description: "a", metadata: marker })).body.id;
  takeRequests();
  const plan = await ctx.run("plan");
  expect(takeRequests()).toContain("GET /api_keys");
  expect(plan.stdout).not.toMatch(/\+ api_keys\.a /);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.records())["api_keys.a"]?.id).toBe(made);
});
