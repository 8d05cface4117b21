/**
 * `--refresh-only`, as a user runs it after objects changed behind tgw's back: one key edited by
 * hand, one deleted by hand, one left unrecorded by `tgw state rm` (its marker still on it). The
 * refresh-only plan reports all three and changes nothing; its apply drops the deleted key's record
 * and records the found one, changing no object; an ordinary apply then converges.
 */
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { FileStateStore } from "../../../src/state/index.js";
import { useStackDir } from "../stack-dir.js";
import { spawnTgw, tgw } from "../tgw.js";

const ctx = useStackDir("tgw-refresh-only-");
const config = ["stack: refresh-only", "api_keys:", "  a: {description: key a}", "  b: {description: key b}"]
  .concat(["  c: {description: key c}", ""])
  .join("\n");

it("plans what changed outside tgw, records it on apply without changing any object, then converges", async () => {
  await ctx.configure(config);
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const before = await ctx.records();
  const [a, b, c] = ["a", "b", "c"].map((k) => before[`api_keys.${k}`]?.id as string);
  expect((await ctx.api("PATCH", `/api_keys/${a}`, { description: "edited by hand" })).status).toBe(200);
  expect((await ctx.api("DELETE", `/api_keys/${b}`)).status).toBe(204);
  expect((await ctx.run("state", "rm", "api_keys.c")).code).toBe(0);
  const stateFile = join(ctx.dir, ".tgw", "state.json");
  const unchanged = await readFile(stateFile, "utf8");
  ctx.server.resetRequests();

  const plan = await ctx.run("plan", "--refresh-only", "--detailed-exitcode");
  expect(plan.code, plan.stderr).toBe(2);
  expect(plan.stdout).toContain(`~ api_keys.a (${a}): description`);
  expect(plan.stdout).toContain(`- api_keys.b (${b})`);
  expect(plan.stdout).toContain(`+ api_keys.c (${c})`);
  expect(plan.stdout).toContain("Refresh-only plan: 1 changed outside tgw, 1 record(s) to drop, 1 to add.");
  const json = await ctx.run("plan", "--refresh-only", "--json");
  expect(JSON.parse(json.stdout)).toEqual({
    format_version: 1,
    refresh_only: true,
    stack: "refresh-only",
    changed_outside: [{ address: "api_keys.a", kind: "api_key", id: a, fields: ["description"] }],
    state_changes: {
      drop: [{ address: "api_keys.b", kind: "api_key", id: b }],
      record: [{ address: "api_keys.c", kind: "api_key", id: c }],
    },
    applied: false,
  });
  // Without a terminal and without --auto-approve, apply asks nothing and changes nothing.
  const refused = await ctx.run("apply", "--refresh-only");
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/--auto-approve/);
  expect(await readFile(stateFile, "utf8")).toBe(unchanged);

  const applied = await ctx.run("apply", "--refresh-only", "--auto-approve");
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stdout).toContain("Refresh complete: 1 record(s) dropped, 1 added. No object was changed.");
  expect(ctx.server.mutations()).toEqual([]);
  const after = await ctx.records();
  expect(Object.keys(after).sort()).toEqual(["api_keys.a", "api_keys.c"]);
  expect(after["api_keys.c"]?.id).toBe(c);
  expect((await ctx.api("GET", `/api_keys/${a}`)).body.description).toBe("edited by hand");

  // Nothing left to record; the outside change is still reported until an apply changes it back.
  const again = await ctx.run("plan", "--refresh-only", "--detailed-exitcode");
  expect(again.code).toBe(2);
  expect(again.stdout).toContain("1 changed outside tgw, 0 record(s) to drop, 0 to add.");
  const converge = await ctx.run("apply", "--auto-approve");
  expect(converge.code, converge.stderr).toBe(0);
  expect(converge.stdout).toMatch(/1 created/);
  expect((await ctx.api("GET", `/api_keys/${a}`)).body.description).toBe("key a");
  expect((await ctx.run("plan", "--detailed-exitcode")).code).toBe(0);
  const quiet = await ctx.run("plan", "--refresh-only", "--detailed-exitcode");
  expect(quiet.code).toBe(0);
  expect(quiet.stdout).toContain("No changes. The state matches the live objects.");
});

it("refuses what it cannot combine with", async () => {
  await ctx.configure(config);
  for (const args of [
    ["plan", "--refresh-only", "--destroy"],
    ["plan", "--refresh-only", "--out", "x.plan"],
    ["apply", "--refresh-only", "--replace", "api_keys.a"],
  ]) {
    const run = await ctx.run(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--refresh-only cannot be combined with/);
  }
});

it("records another workspace's objects only with --takeover, and never without asking for it", async () => {
  await ctx.configure(config.replace("stack: refresh-only", "stack: refresh-only-takeover"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const ids = Object.values(await ctx.records()).map((r) => r.id);
  ctx.server.resetRequests();
  // A second working copy of the stack, with a state of its own (another lineage).
  const other = await mkdtemp(join(tmpdir(), "tgw-refresh-only-other-"));
  try {
    await copyFile(join(ctx.dir, "tgw.yaml"), join(other, "tgw.yaml"));
    const inOther = (...args: string[]) =>
      tgw([...args, "-f", "."], {
        cwd: other,
        server: { url: ctx.server.url, token: ctx.server.token },
        env: { CI: "" },
      });
    const refused = await inOther("apply", "--refresh-only", "--auto-approve");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--takeover/);
    await expect(readFile(join(other, ".tgw", "state.json"), "utf8")).rejects.toThrow();
    const taken = await inOther("apply", "--refresh-only", "--auto-approve", "--takeover");
    expect(taken.code, taken.stderr).toBe(0);
    const recorded = JSON.parse(await readFile(join(other, ".tgw", "state.json"), "utf8")) as {
      resources: Record<string, { id: string }>;
    };
    expect(
      Object.values(recorded.resources)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...ids].sort());
    expect(ctx.server.mutations()).toEqual([]);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});

it("apply --refresh-only with --lock-timeout says it waits for the lock, then records once it is free", async () => {
  await ctx.configure(config.replace("stack: refresh-only", "stack: refresh-only-lock"));
  expect((await ctx.run("apply", "--auto-approve")).code).toBe(0);
  const c = (await ctx.records())["api_keys.c"]?.id as string;
  expect((await ctx.run("state", "rm", "api_keys.c")).code).toBe(0);
  const store = new FileStateStore(join(ctx.dir, ".tgw", "state.json"), { stack: "refresh-only-lock" });
  const unlock = await store.lock({ timeoutMs: 0, holder: "tgw apply" });
  const waiting = spawnTgw(
    ["apply", "--refresh-only", "--auto-approve", "--lock-timeout", "60s", "-f", "."],
    {
      cwd: ctx.dir,
      server: { url: ctx.server.url, token: ctx.server.token },
      env: { CI: "true" },
    },
  );
  const exited = new Promise<number | null>((resolve) => waiting.on("close", resolve));
  let stdout = "";
  // Unlock only once it says it waits (no sleep: a loaded machine may start it late).
  await new Promise<void>((resolve, reject) => {
    waiting.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (/Waiting for the state lock of .*state\.json \(another tgw holds it\)\.\.\./.test(stdout))
        resolve();
    });
    waiting.on("close", () => reject(new Error(`exited without waiting for the lock:\n${stdout}`)));
  });
  expect((await ctx.records())["api_keys.c"]).toBeUndefined();
  await unlock();
  expect(await exited).toBe(0);
  expect(stdout).toContain("Refresh complete: 0 record(s) dropped, 1 added.");
  expect((await ctx.records())["api_keys.c"]?.id).toBe(c);
});
