/**
 * `removed:` entries, as a user writes them, through the CLI against a reference server: a key leaves
 * the configuration with a `removed:` entry, so tgw stops managing it and keeps it (Terraform's
 * `removed` block). The journeys end with the object alive, without tgw's marker, unrecorded, and
 * nothing deleted by later plans, destroys, or a lost state.
 */
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-removed-");

const run = ctx.run;
const configure = (stack: string, keys: string[], removed: string[] = [], extra: string[] = []) =>
  writeFile(
    join(ctx.dir, "tgw.yaml"),
    [
      `stack: ${stack}`,
      "api_keys:",
      ...keys.map((k) => `  ${k}: {description: the key, metadata: {team: ${k}}}`),
      ...(removed.length > 0
        ? ["removed:", ...removed.map((r) => `  - from: ${r.includes(".") ? r : `api_keys.${r}`}`)]
        : []),
      ...extra,
      "",
    ].join("\n"),
  );
const stateFile = () => join(ctx.dir, ".tgw", "state.json");
const recorded = async () =>
  Object.keys((JSON.parse(await readFile(stateFile(), "utf8")) as { resources: object }).resources);
const liveKey = async (id: string) => {
  const res = await fetch(`${ctx.server.url}/api_keys/${id}`, {
    headers: { authorization: `Bearer ${ctx.server.token}`, "service-version": "2" },
  });
  return { status: res.status, body: (await res.json()) as { metadata?: string } };
};
const idOf = async (address: string) =>
  (JSON.parse(await readFile(stateFile(), "utf8")) as { resources: Record<string, { id: string }> })
    .resources[address]?.id as string;

it("a key removed: planned as forget, its marker taken out, its record dropped; later plans and destroy keep it", async () => {
  await configure("removed", ["a", "b"]);
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const id = await idOf("api_keys.a");
  const token = await readFile(join(ctx.dir, ".tgw", "secrets", "a.token"), "utf8");

  await configure("removed", ["b"], ["a"]);
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain("# api_keys.a will no longer be managed by tgw; the object stays");
  expect(plan.stdout).toContain(`. api_keys.a (api_key) ${id}`);
  expect(plan.stdout).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete, 1 to forget.");
  const json = JSON.parse((await run("plan", "--json")).stdout) as {
    changes: { address: string; action: string }[];
    summary: Record<string, number>;
  };
  expect(json.changes.find((c) => c.address === "api_keys.a")?.action).toBe("forget");
  expect(json.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0, forget: 1 });

  const applied = await run("apply", "--auto-approve");
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain(
    "Apply complete: 0 created, 0 updated, 0 replaced, 0 deleted, 1 no longer managed.",
  );
  const after = await liveKey(id);
  expect(after.status).toBe(200);
  expect(JSON.parse(after.body.metadata as string)).toEqual({ team: "a" });
  expect(await recorded()).toEqual(["api_keys.b"]);
  // The key lives on, and so does its token, moved aside: a key made or adopted at the address later
  // must not pass for its owner.
  expect(applied.stdout).toContain(
    `api_keys.a: the key lives on, no longer managed; its token file was moved to`,
  );
  const aside = join(ctx.dir, ".tgw", "secrets", "removed", `a.${id}.token`);
  expect(await readFile(aside, "utf8")).toBe(token);
  expect((await stat(aside)).mode & 0o777).toBe(0o600);
  await expect(readFile(join(ctx.dir, ".tgw", "secrets", "a.token"), "utf8")).rejects.toThrow();

  for (const removed of [["a"], []]) {
    await configure("removed", ["b"], removed);
    const again = await run("plan", "--detailed-exitcode");
    expect(again.stdout).toContain("No changes.");
    expect(again.code).toBe(0);
  }
  expect((await run("destroy", "--auto-approve")).code).toBe(0);
  expect((await liveKey(id)).status).toBe(200);
});

it("with the state lost, the removed key is found by its marker and forgotten, not deleted; destroy before the apply keeps it too", async () => {
  await configure("removed-lost", ["a", "b"]);
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const id = await idOf("api_keys.a");
  await configure("removed-lost", ["b"], ["a"]);
  const destroyPlan = await run("plan", "--destroy");
  expect(destroyPlan.stdout).toContain("# api_keys.a will no longer be managed by tgw");
  expect(destroyPlan.stdout).not.toMatch(/- api_keys\.a/);

  await rm(join(ctx.dir, ".tgw"), { recursive: true });
  const plan = await run("plan");
  expect(plan.stdout).toContain(`. api_keys.a (api_key) ${id}`);
  // A new state: the markers record the lost one's lineage (docs/state.md > Recovery from markers).
  const applied = await run("apply", "--auto-approve", "--takeover");
  expect(applied.stderr).not.toContain("Error");
  expect(applied.code).toBe(0);
  expect((await liveKey(id)).status).toBe(200);
  await rm(join(ctx.dir, ".tgw"), { recursive: true });
  await configure("removed-lost", ["b"]);
  expect((await run("plan")).stdout).not.toContain("api_keys.a");
  expect((await liveKey(id)).status).toBe(200);
});

it("bad removed entries are reported with file, line and field, and nothing is planned", async () => {
  const cases: [string[], string[], string][] = [
    [["a"], ["a"], "api_keys.a: is still in the configuration"],
    [["b"], ["edges.https.e1.saml"], "must be the address <collection>.<name> of a resource"],
    [["b"], ["a", "a"], "api_keys.a: is removed twice"],
    [["b"], ["a"], "api_keys.a: is also the from of a moved entry"],
  ];
  for (const [i, [keys, removed, message]] of cases.entries()) {
    const moved = i === 3 ? ["moved:", "  - {from: api_keys.a, to: api_keys.b}"] : [];
    await configure("removed-bad", keys, removed, moved);
    const plan = await run("plan");
    expect(plan.stderr, `case ${i}`).toContain(message);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(message);
    expect(plan.stderr).toMatch(/tgw\.yaml:\d+:\d+/);
    expect(plan.stderr).toContain("removed");
  }
});

it("removed after a tgw state mv not applied yet: the marker naming the old address goes too, so no later plan prunes the object", async () => {
  await configure("removed-mv", ["a", "keep"]);
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const id = await idOf("api_keys.a");
  expect((await run("state", "mv", "api_keys.a", "api_keys.b")).code).toBe(0);
  await configure("removed-mv", ["keep"], ["b"]);
  const applied = await run("apply", "--auto-approve");
  expect(applied.stderr).not.toContain("Error");
  expect(applied.stdout).toContain("1 no longer managed");
  const after = await liveKey(id);
  expect(after.status).toBe(200);
  expect(JSON.parse(after.body.metadata as string)).toEqual({ team: "a" });
  await configure("removed-mv", ["keep"]);
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.stdout).toContain("No changes.");
  expect(plan.code).toBe(0);
  expect((await liveKey(id)).status).toBe(200);
});
