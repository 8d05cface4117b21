/**
 * What a plan reads (docs/state.md > What a refresh reads), through the CLI against the reference
 * server's request log: one GET for one resource of a kind the account holds 1,113 of (issue 30 §2,
 * issue 43), from the first plan after the apply; `tgw state rm` forgets; a state file put back by
 * hand is refused with its remedies; a recorded object gone has its kind listed before it is made
 * again.
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

it("reads one resource of a kind holding 1,113 objects with one GET from the first plan after the apply", async () => {
  await ctx.configure(keys("a"));
  // The create's address had no record: its kind is listed (an object marked for it is adopted).
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect(takeRequests().filter((r) => r.startsWith("GET /api_keys")).length).toBeGreaterThanOrEqual(12);
  const id = (await ctx.records())["api_keys.a"]?.id as string;
  // The create was recorded as pending before it was sent: nothing is left to list.
  for (let i = 0; i < 2; i++) {
    const plan = await ctx.run("plan", "--detailed-exitcode");
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
    expect(takeRequests()).toEqual([`GET /api_keys/${id}`]);
  }
});

it("tgw state rm forgets: the object is left alone when the configuration drops it, adopted while configured", async () => {
  await ctx.configure(keys("a", "b"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const b = (await ctx.records())["api_keys.b"]?.id as string;
  expect((await ctx.run("state", "rm", "api_keys.b")).code).toBe(0);
  // Still configured: its marker names a configured address without a record, so it is adopted.
  const kept = await ctx.run("plan");
  expect(kept.stdout).not.toMatch(/\+ api_keys\.b /);
  expect((await ctx.run("state", "rm", "api_keys.b")).code).toBe(1);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.records())["api_keys.b"]?.id).toBe(b);
  // Forgotten again, then dropped from the configuration: nothing is deleted.
  expect((await ctx.run("state", "rm", "api_keys.b")).code).toBe(0);
  await ctx.configure(keys("a"));
  const plan = await ctx.run("plan", "--detailed-exitcode");
  expect(plan.stdout).toContain("No changes.");
  expect(plan.code).toBe(0);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  expect((await ctx.api("GET", `/api_keys/${b}`)).status).toBe(200);
  expect((await ctx.api("DELETE", `/api_keys/${b}`)).status).toBe(204);
});

it("refuses an older state file put back by hand, naming the newer objects and the remedies", async () => {
  await ctx.configure(keys("a"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const statePath = join(ctx.dir, ".tgw", "state.json");
  await copyFile(statePath, join(ctx.dir, "copy.json"));
  await ctx.configure(keys("a", "c"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const c = (await ctx.records())["api_keys.c"]?.id as string;
  // The copy from before `c` is put back, and `c` leaves the configuration.
  await copyFile(join(ctx.dir, "copy.json"), statePath);
  await ctx.configure(keys("a"));
  takeRequests();
  const plan = await ctx.run("plan");
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain("this state is behind, an older copy was put back");
  expect(plan.stderr).toContain(`api_keys.c (${c}`);
  expect(plan.stderr).toContain("tgw state restore");
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(1);
  expect(takeRequests().filter((r) => !r.startsWith("GET "))).toEqual([]);
  // --takeover: the state records the claim; c, no longer configured, is left alone.
  expect((await ctx.run("apply", "--auto-approve", "--takeover")).code).toBe(0);
  expect((await ctx.api("GET", `/api_keys/${c}`)).status).toBe(200);
  const after = await ctx.run("plan", "--detailed-exitcode");
  expect(after.code).toBe(0);
  expect((await ctx.api("DELETE", `/api_keys/${c}`)).status).toBe(204);
});

it("lists the kind when a recorded object is gone, so that an object marked for the address since is adopted, not doubled", async () => {
  await ctx.configure(keys("a"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const old = (await ctx.records())["api_keys.a"]?.id as string;
  // Deleted by hand; the address's object made again by hand, with the stack's marker.
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
