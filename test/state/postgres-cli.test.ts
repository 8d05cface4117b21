/**
 * The PostgreSQL state store through the real CLI, against a real PostgreSQL and a reference server
 * started by this file: selection (`state:` block, TGW_STATE_URL, `--state`), no password in the
 * configuration, two working copies applying the same stack at once, history, restore, and migrating
 * a state file into PostgreSQL and back without loss.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { PostgresStateStore } from "../../src/state/postgres/store.js";
import { tgw } from "../cli/tgw.js";
import { liveAddresses } from "../helpers/live.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const pg = await startTestPostgres();
let server: TestServer;
let api: ApiClient;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
});
afterAll(async () => {
  await api.close();
  await server.close();
  await pg?.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A working copy: `tgw.yaml` with `n` backends of `stack`, and the given extra top-level YAML. */
async function workingCopy(stack: string, n: number, extra = ""): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tgw-pgcli-"));
  dirs.push(dir);
  const lines = [`stack: ${stack}`, extra, "tunnel_group_backends:"];
  for (let i = 0; i < n; i++)
    lines.push(`  b${String(i).padStart(3, "0")}:`, `    description: backend ${i}`);
  await writeFile(join(dir, "tgw.yaml"), `${lines.join("\n")}\n`);
  return dir;
}

describe.skipIf(pg === undefined)("PostgreSQL state through the CLI", () => {
  if (pg === undefined) return;
  const target = () => ({ url: server.url, token: server.token });
  /** A schema URL without the password, and the environment that supplies it. */
  const fresh = () => {
    const url = new URL(pg.freshSchemaUrl());
    url.password = "";
    return { url: url.toString(), env: { PGPASSWORD: pg.password, TGW_STATE_HOSTS: url.hostname } };
  };

  it("uses the state: block (password from PGPASSWORD), and writes no state file", async () => {
    const { url, env } = fresh();
    const dir = await workingCopy("block", 2, `state:\n  url: ${url}`);
    const run = await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target(), env });
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    const store = new PostgresStateStore(
      url.replace("postgres://postgres@", `postgres://postgres:${pg.password}@`),
      {
        stack: "block",
      },
    );
    try {
      expect(Object.keys((await store.read()).resources)).toHaveLength(2);
      // The journal writes as results arrive: each write is kept with the plan that produced it.
      const history = await store.history();
      expect(history[0]).toMatchObject({ serial: history.length, writtenBy: "tgw apply", resources: 2 });
      for (const entry of history) expect(entry.plan?.map((c) => c.action)).toEqual(["create", "create"]);
    } finally {
      await store.close();
    }
    await expect(readFile(join(dir, ".tgw", "state.json"))).rejects.toThrow(/ENOENT/);
    const plan = await tgw(["plan", "-f", ".", "--detailed-exitcode"], { cwd: dir, server: target(), env });
    expect(plan.code).toBe(0);
  });

  it("refuses a password written in the state: block, naming file, line and field", async () => {
    const dir = await workingCopy("secret", 1, "state:\n  url: postgres://tgw:hunter2@db.example.com/tgw");
    const run = await tgw(["validate", "-f", "."], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/tgw\.yaml:3:\d+: state\.url: must not hold a password/);
    expect(run.stderr + run.stdout).not.toContain("hunter2");
  });

  it("uses TGW_STATE_URL and --state, --state first", async () => {
    const a = fresh();
    const b = fresh();
    const dir = await workingCopy("chosen", 1);
    const env = { ...a.env, TGW_STATE_URL: a.url };
    expect(
      (await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target(), env })).code,
    ).toBe(0);
    const listed = await tgw(["state", "list", "--json"], { cwd: dir, env });
    // Two writes: the pending creates, then their results (docs/state.md > Pending creates).
    expect(JSON.parse(listed.stdout)).toMatchObject({ serial: 2, stack: "chosen" });
    // The footer names the stack once (the location says it: `... (stack chosen)`).
    const footer = (await tgw(["state", "list"], { cwd: dir, env })).stdout;
    expect(footer).toMatch(/\(stack chosen\) \(serial 2, lineage /);
    const other = await tgw(["state", "list", "--json", "--state", b.url], { cwd: dir, env });
    expect(JSON.parse(other.stdout)).toMatchObject({ serial: 0 });
    expect(other.stdout).not.toContain(pg.password);
  });

  it("two working copies of one stack apply at once: exactly one applies, the other waits or names the holder; 0 duplicates", async () => {
    const { url, env } = fresh();
    const one = await workingCopy("race", 40, `state:\n  url: ${url}`);
    const two = await workingCopy("race", 40, `state:\n  url: ${url}`);
    server.resetRequests();
    const args = ["apply", "-f", ".", "--auto-approve", "--parallelism", "2"];
    const runs = await Promise.all([
      tgw(args, { cwd: one, server: target(), env }),
      tgw([...args, "--lock-timeout", "60s"], { cwd: two, server: target(), env }),
    ]);
    for (const r of runs) {
      if (r.code !== 0)
        expect(r.stderr).toMatch(
          /Error \[state_locked\]: state postgres:\/\/.* is locked by tgw apply \(pid \d+ on /,
        );
    }
    const applied = runs.filter((r) => /: created /.test(r.stdout));
    expect(applied).toHaveLength(1);
    expect(server.mutations().filter((r) => r.method === "POST")).toHaveLength(40);
    const counts = await liveAddresses(api, "race");
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it("lists the history, restores a past serial, and migrates file -> PostgreSQL -> file without loss", async () => {
    const dir = await workingCopy("moving", 3);
    expect((await tgw(["apply", "-f", ".", "--auto-approve"], { cwd: dir, server: target() })).code).toBe(0);
    const file = join(dir, ".tgw", "state.json");
    const original = await readFile(file, "utf8");
    const serial = JSON.parse(original).serial as number;

    const { url, env } = fresh();
    const moved = await tgw(["state", "migrate", "--to", url], { cwd: dir, env });
    expect(moved.stderr).toBe("");
    expect(moved.stdout).toContain(
      `Migrated stack moving (serial ${serial}, lineage ${JSON.parse(original).lineage}, 3 resources)`,
    );
    expect(moved.stdout).not.toContain(pg.password);

    // Forget one record through PostgreSQL, see it in the history, restore the serial before it.
    const rm1 = await tgw(["state", "rm", "tunnel_group_backends.b000", "--state", url], { cwd: dir, env });
    expect(rm1.code).toBe(0);
    const history = await tgw(["state", "history", "--json", "--state", url], { cwd: dir, env });
    const entries = JSON.parse(history.stdout).history as {
      serial: number;
      writtenBy: string;
      resources: number;
    }[];
    expect(entries.map((e) => [e.serial, e.writtenBy, e.resources])).toEqual([
      [serial + 1, "tgw state rm", 2],
      [serial, "tgw state migrate", 3],
    ]);
    const restored = await tgw(["state", "restore", String(serial), "--state", url], { cwd: dir, env });
    expect(restored.stdout).toContain(`Restored the records of serial ${serial} as serial ${serial + 2}`);

    // Back into a new file: lineage, serial and records as PostgreSQL has them.
    const back = join(dir, "back", "state.json");
    const returned = await tgw(["state", "migrate", "--state", url, "--to", back], { cwd: dir, env });
    expect(returned.code).toBe(0);
    const copy = await new FileStateStore(back, { stack: "moving" }).read();
    const first = JSON.parse(original);
    // The restore marks every kind unrecorded: objects created after serial N carry no record.
    expect(copy).toEqual({
      ...first,
      serial: serial + 2,
      listing: { counts: first.listing.counts, unrecorded: expect.arrayContaining(["*"]) },
    });
    const busy = await tgw(["state", "migrate", "--state", url, "--to", file], { cwd: dir, env });
    expect(busy.stderr).toContain("already holds a state");
  }, 60_000);
});
