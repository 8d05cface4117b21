/**
 * Renaming an address, as a user does it, through the CLI against a reference server: `tgw state mv`
 * then the rename in YAML; `moved:` entries, chained over two renames; a state holding two records of
 * one object. Each journey ends with the object still alive (same id, same token) and an empty plan.
 */
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-rename-");

const run = ctx.run;
const configure = (stack: string, keys: string[], moved: [string, string][] = []) =>
  writeFile(
    join(ctx.dir, "tgw.yaml"),
    [
      `stack: ${stack}`,
      "api_keys:",
      ...keys.map((k) => `  ${k}: {description: the key}`),
      ...(moved.length > 0
        ? ["moved:", ...moved.map(([f, t]) => `  - {from: api_keys.${f}, to: api_keys.${t}}`)]
        : []),
      "",
    ].join("\n"),
  );
const state = async () =>
  JSON.parse(await readFile(join(ctx.dir, ".tgw", "state.json"), "utf8")) as {
    resources: Record<string, { id: string }>;
  };
const live = async (id: string) =>
  (
    await fetch(`${ctx.server.url}/api_keys/${id}`, {
      headers: { authorization: `Bearer ${ctx.server.token}`, "service-version": "2" },
    })
  ).status;

async function applyThenEmptyPlan(): Promise<void> {
  const applied = await run("apply", "--auto-approve");
  expect(applied.stderr).not.toContain("Error");
  expect(applied.code).toBe(0);
  const again = await run("plan", "--detailed-exitcode");
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
}

it("state mv onto the name of a key deleted earlier: the deleted key's token file went with it, the renamed key's follows", async () => {
  await configure("mv-onto-deleted", ["ops", "admin"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const token = await readFile(join(ctx.dir, ".tgw", "secrets", "ops.token"), "utf8");
  await configure("mv-onto-deleted", ["ops"]);
  await applyThenEmptyPlan();
  await expect(readFile(join(ctx.dir, ".tgw", "secrets", "admin.token"), "utf8")).rejects.toThrow();

  expect((await run("state", "mv", "api_keys.ops", "api_keys.admin")).code).toBe(0);
  await configure("mv-onto-deleted", ["admin"]);
  // The token follows the key at the apply, found by its sidecar.
  expect((await run("plan")).stderr).not.toContain("is not on this machine");
  const applied = await run("apply", "--auto-approve");
  expect(applied.stdout).toContain(
    "api_keys.admin: its token file was at .tgw/secrets/ops.token; moved to .tgw/secrets/admin.token",
  );
  await applyThenEmptyPlan();
  expect((await state()).resources["api_keys.admin"]?.id).toBe(id);
  expect(await readFile(join(ctx.dir, ".tgw", "secrets", "admin.token"), "utf8")).toBe(token);
  expect((await run("plan")).stderr).not.toContain("token");
});

it("a token move killed between its two renames (the sidecar moved, the token not): the next apply finishes it", async () => {
  await configure("half-moved", ["ops"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const secrets = join(ctx.dir, ".tgw", "secrets");
  const token = await readFile(join(secrets, "ops.token"), "utf8");
  expect((await run("state", "mv", "api_keys.ops", "api_keys.admin")).code).toBe(0);
  await configure("half-moved", ["admin"]);
  // What a SIGKILL between moveTokenFile's renames leaves: admin's sidecar, the token still in ops.token.
  await rename(join(secrets, "ops.token.json"), join(secrets, "admin.token.json"));
  expect((await run("plan")).stderr).not.toContain("is not on this machine");
  const applied = await run("apply", "--auto-approve");
  expect(applied.stdout).toContain("moved to .tgw/secrets/admin.token");
  await applyThenEmptyPlan();
  expect(await readFile(join(secrets, "admin.token"), "utf8")).toBe(token);
  const sidecar = JSON.parse(await readFile(join(secrets, "admin.token.json"), "utf8")) as { key_id: string };
  expect(sidecar.key_id).toBe(id);
  expect((await run("plan")).stderr).not.toContain("token");
});

it("state mv, then the rename in YAML: the object is kept and its marker rewritten", async () => {
  await configure("mv", ["ops"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const token = await readFile(join(ctx.dir, ".tgw", "secrets", "ops.token"), "utf8");

  expect((await run("state", "mv", "api_keys.ops", "api_keys.admin")).code).toBe(0);
  await configure("mv", ["admin"]);
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain(`~ api_keys.admin (api_key) ${id}`);
  expect(plan.stdout).not.toContain("api_keys.ops");
  expect(plan.stdout).toContain("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");

  await applyThenEmptyPlan();
  expect(await live(id)).toBe(200);
  expect((await state()).resources["api_keys.admin"]?.id).toBe(id);
  expect(await readFile(join(ctx.dir, ".tgw", "secrets", "admin.token"), "utf8")).toBe(token);
});

it("a state with two records of one object is refused with its remedy (state rm), which keeps the object", async () => {
  await configure("twice", ["a"]);
  await applyThenEmptyPlan();
  // A merged or hand-edited state: a second address records the same object.
  const file = join(ctx.dir, ".tgw", "state.json");
  const doc = JSON.parse(await readFile(file, "utf8"));
  const id = doc.resources["api_keys.a"].id as string;
  doc.resources["api_keys.b"] = { ...doc.resources["api_keys.a"], address: "api_keys.b" };
  await writeFile(file, JSON.stringify(doc));

  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(`api_keys.a and api_keys.b record one object (${id})`);
  expect(plan.stderr).toContain("tgw state rm api_keys.b");
  expect((await run("state", "rm", "api_keys.b")).code).toBe(0);
  await applyThenEmptyPlan();
  expect(await live(id)).toBe(200);
  expect(Object.keys((await state()).resources)).toEqual(["api_keys.a"]);
});

it("moved: twice in a row (a chain), with honest plan text; the object and its token stay", async () => {
  await configure("chain", ["operator"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.operator"]?.id as string;

  await configure("chain", ["ops"], [["operator", "ops"]]);
  const first = await run("plan");
  expect(first.stdout).toContain("moved from api_keys.operator (its ownership marker is rewritten)");
  // The metadata line says what changes, not `metadata = "" (ownership marker added)`.
  expect(first.stdout).toMatch(
    /~ metadata += \(ownership marker rewritten: api_keys\.operator -> api_keys\.ops\)/,
  );
  expect(first.stdout).not.toContain('""');
  expect(first.stdout).not.toContain("no longer exist");
  expect(first.stdout).not.toContain("marker is missing");
  await applyThenEmptyPlan();

  // The second rename keeps the first entry, as Terraform's chained moved blocks do.
  await configure(
    "chain",
    ["admin"],
    [
      ["operator", "ops"],
      ["ops", "admin"],
    ],
  );
  const second = await run("plan", "--detailed-exitcode");
  expect(second.stderr).not.toContain("Error");
  expect(second.code).toBe(2);
  expect(second.stdout).toContain(`~ api_keys.admin (api_key) ${id}`);
  expect(second.stdout).toContain("moved from api_keys.ops");
  await applyThenEmptyPlan();
  expect(await live(id)).toBe(200);
  expect(Object.keys((await state()).resources)).toEqual(["api_keys.admin"]);
  expect(await readFile(join(ctx.dir, ".tgw", "secrets", "admin.token"), "utf8")).toMatch(/^tgw_/);

  // From a lost state the chain is followed too, by the markers.
  await rm(join(ctx.dir, ".tgw", "state.json"));
  const recovered = await run("apply", "--auto-approve", "--takeover");
  expect(recovered.code).toBe(0);
  expect((await state()).resources["api_keys.admin"]?.id).toBe(id);
});

it("moved: onto an address whose old object is still recorded is refused, and the documented way converges", async () => {
  await configure("onto", ["a", "d"]);
  await applyThenEmptyPlan();
  const ids = (await state()).resources;
  const a = ids["api_keys.a"]?.id as string;
  const d = ids["api_keys.d"]?.id as string;

  // In one change: d removed, a renamed to d.
  await configure("onto", ["d"], [["a", "d"]]);
  ctx.server.resetRequests();
  const refused = await run("plan");
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    `moved: api_keys.a -> api_keys.d: both addresses have an object in the state (${a} and ${d})`,
  );
  expect((await run("apply", "--auto-approve")).code).toBe(1);
  expect(ctx.server.mutations()).toEqual([]);
  expect(await live(a)).toBe(200);

  // As the error says: the removal first, then the move.
  await configure("onto", ["a"]);
  await applyThenEmptyPlan();
  expect(await live(d)).toBe(404);
  await configure("onto", ["d"], [["a", "d"]]);
  await applyThenEmptyPlan();
  expect((await state()).resources["api_keys.d"]?.id).toBe(a);
});

it("state mv, then a moved: entry from the old name (another branch's rename): the state mv holds the object, the moved: entry's address is made", async () => {
  await configure("mv-then-moved", ["ops"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const token = await readFile(join(ctx.dir, ".tgw", "secrets", "ops.token"), "utf8");

  // The object still carries the marker of ops until an apply rewrites it. The moved: entry's target
  // sorts first, so it would be matched first if the entry took the object by that marker.
  expect((await run("state", "mv", "api_keys.ops", "api_keys.svc")).code).toBe(0);
  await configure("mv-then-moved", ["admin", "svc"], [["ops", "admin"]]);
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.stdout).toContain(`~ api_keys.svc (api_key) ${id}`);
  expect(plan.stdout).toContain("+ api_keys.admin (api_key)");
  expect(plan.stdout).not.toContain("drift");
  expect(plan.stdout).toContain("Plan: 1 to create, 1 to update, 0 to replace, 0 to delete.");

  await applyThenEmptyPlan();
  const after = (await state()).resources;
  expect(after["api_keys.svc"]?.id).toBe(id);
  expect(after["api_keys.admin"]?.id).not.toBe(id);
  expect(await readFile(join(ctx.dir, ".tgw", "secrets", "svc.token"), "utf8")).toBe(token);
});

it("state mv, the old name configured again and an object imported there: refused until an apply rewrites the old marker, with that advice", async () => {
  await configure("mv-then-import", ["ops"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;

  expect((await run("state", "mv", "api_keys.ops", "api_keys.svc")).code).toBe(0);
  await configure("mv-then-import", ["ops", "svc"]);
  const made = (await (
    await fetch(`${ctx.server.url}/api_keys`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ctx.server.token}`,
        "service-version": "2",
        "content-type": "application/json",
      },
      body: JSON.stringify({ description: "made by hand" }),
    })
  ).json()) as { id: string };
  // Before, the advice was to delete one of the two objects: the one named is svc's.
  const refused = await run("import", "api_keys.ops", made.id);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    `${id} still carries the marker of api_keys.ops, but this state records it as api_keys.svc (a tgw state mv not applied yet): apply first`,
  );
  expect(refused.stderr).not.toContain("delete one of them");

  await configure("mv-then-import", ["svc"]);
  await applyThenEmptyPlan();
  await configure("mv-then-import", ["ops", "svc"]);
  const imported = await run("import", "api_keys.ops", made.id);
  expect(imported.stderr).not.toContain("Error");
  expect(imported.code).toBe(0);
  await applyThenEmptyPlan();
  const after = (await state()).resources;
  expect(after["api_keys.svc"]?.id).toBe(id);
  expect(after["api_keys.ops"]?.id).toBe(made.id);
  expect(await live(id)).toBe(200);
});

it("state rm leaves a key's token file; the key adopted again through its marker keeps it, and a destroy after a state mv sets its file aside", async () => {
  await configure("rm-readopt", ["ops"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const file = join(ctx.dir, ".tgw", "secrets", "ops.token");
  const token = await readFile(file, "utf8");

  const removed = await run("state", "rm", "api_keys.ops");
  expect(removed.code).toBe(0);
  expect(await readFile(file, "utf8")).toBe(token);

  // Adopted again: not reported lost, the file untouched.
  const plan = await run("plan");
  expect(plan.stderr).not.toContain("is not on this machine");
  await applyThenEmptyPlan();
  expect((await state()).resources["api_keys.ops"]?.id).toBe(id);
  expect(await readFile(file, "utf8")).toBe(token);
  expect((await run("plan")).stderr).not.toContain("is not on this machine");

  // state mv without an apply, then destroy: the deleted key's file is found by its sidecar.
  expect((await run("state", "mv", "api_keys.ops", "api_keys.gone")).code).toBe(0);
  expect((await run("destroy", "--auto-approve")).code).toBe(0);
  await expect(readFile(file, "utf8")).rejects.toThrow();
  const aside = join(ctx.dir, ".tgw", "secrets", "removed", `gone.${id}.token`);
  expect(await readFile(aside, "utf8")).toBe(token);
});

it("state mv without the rename in the configuration: the plan says what the state says (the new address deleted, the old made), before anything happens", async () => {
  await configure("mv-unrenamed", ["a"]);
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.a"]?.id as string;
  expect((await run("state", "mv", "api_keys.a", "api_keys.b")).code).toBe(0);
  // The object still carries a's marker: the record decides, not the marker.
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.code).toBe(2);
  expect(plan.stdout).toMatch(/- api_keys\.b \(api_key\)/);
  expect(plan.stdout).toMatch(/\+ api_keys\.a \(api_key\)/);
  expect(plan.stdout).toContain("Plan: 1 to create, 0 to update, 0 to replace, 1 to delete.");
  expect(await live(id)).toBe(200);
  // Moved back, nothing is left to do: the record and the marker agree again.
  expect((await run("state", "mv", "api_keys.b", "api_keys.a")).code).toBe(0);
  const again = await run("plan", "--detailed-exitcode");
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
  expect((await state()).resources["api_keys.a"]?.id).toBe(id);
});

it("state mv with ownership: state-only, then the rename in YAML: an apply with nothing to change still moves the token file", async () => {
  const write = (name: string) =>
    writeFile(
      join(ctx.dir, "tgw.yaml"),
      `stack: state-only-mv\nownership: state-only\napi_keys:\n  ${name}: {description: the key}\n`,
    );
  await write("ops");
  await applyThenEmptyPlan();
  const id = (await state()).resources["api_keys.ops"]?.id as string;
  const token = await readFile(join(ctx.dir, ".tgw", "secrets", "ops.token"), "utf8");
  expect((await run("state", "mv", "api_keys.ops", "api_keys.admin")).code).toBe(0);
  await write("admin");
  // No marker to rewrite: the plan has no changes, and the apply moves the token all the same.
  const applied = await run("apply", "--auto-approve");
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain("api_keys.admin: its token file was at .tgw/secrets/ops.token");
  expect(await readFile(join(ctx.dir, ".tgw", "secrets", "admin.token"), "utf8")).toBe(token);
  expect((await state()).resources["api_keys.admin"]?.id).toBe(id);
});
