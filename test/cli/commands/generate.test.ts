/**
 * `tgw generate` then `import:` entries, as a team adopting what was made by hand does it, through the
 * CLI against a reference server: the file it writes is valid configuration, the plan adopts every
 * unmanaged object (keeping its id) and changes nothing else, and objects of other stacks, or this
 * stack's own, are left out.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-generate-");

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${ctx.server.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ctx.server.token}`,
      "service-version": "2",
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { id: string };
};
const run = ctx.run;

it("writes YAML for what nobody manages; the plan imports it all and changes nothing else; then no changes", async () => {
  await writeFile(
    join(ctx.dir, "tgw.yaml"),
    "stack: gen\napi_keys:\n  mine: {description: managed already}\n",
  );
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const a = await post("/api_keys", { description: "Deploys from CI", metadata: "team=ops" });
  const b = await post("/api_keys", { description: "Deploys from CI" });
  const theirs = await post("/api_keys", {
    description: "other stack",
    metadata: JSON.stringify({ tgw: { stack: "other", address: "api_keys.x" } }),
  });
  const backend = await post("/backends/tunnel_group", { description: "web", labels: { app: "web" } });

  const generated = await run("generate", "--out", "generated.yaml");
  expect(generated.stderr).not.toContain("Error");
  expect(generated.code).toBe(0);
  const doc = parse(await readFile(join(ctx.dir, "generated.yaml"), "utf8")) as {
    api_keys: Record<string, { description: string; metadata?: string }>;
    import: { to: string; id: string }[];
  };
  const imported = new Map(doc.import.map((i) => [i.id, i.to]));
  // One name each, the second made unique.
  expect([imported.get(a.id), imported.get(b.id)].sort()).toEqual([
    "api_keys.deploys-from-ci",
    "api_keys.deploys-from-ci-2",
  ]);
  expect(imported.has(theirs.id)).toBe(false);
  expect([...imported.values()]).not.toContain("api_keys.mine");
  const nameOfA = (imported.get(a.id) as string).slice("api_keys.".length);
  expect(doc.api_keys[nameOfA]).toMatchObject({ description: "Deploys from CI", metadata: "team=ops" });
  expect(imported.get(backend.id)).toBe("tunnel_group_backends.web");

  // Keys made by hand: their tokens were handed out before tgw.
  const text = (await readFile(join(ctx.dir, "generated.yaml"), "utf8")).replace(
    /description: Deploys from CI/g,
    "description: Deploys from CI\n    token_kept_elsewhere: true",
  );
  await writeFile(join(ctx.dir, "generated.yaml"), text);
  const plan = await run("plan", "--json");
  expect(plan.stderr).not.toContain("Error");
  const json = JSON.parse(plan.stdout) as {
    changes: { address: string; action: string; changed_fields: string[]; importing?: { id: string } }[];
  };
  const acting = json.changes.filter((c) => c.action !== "no-op");
  expect(acting.length).toBe(doc.import.length);
  for (const c of acting) {
    expect(c.importing?.id, c.address).toBe(doc.import.find((i) => i.to === c.address)?.id);
    expect(c.action).toBe("update");
    expect(c.changed_fields, `${c.address}: only its marker is written`).toEqual(["metadata"]);
  }
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const again = await run("plan", "--detailed-exitcode");
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
  const none = await run("generate", "--collection", "api_keys");
  expect(none.stdout).not.toContain(a.id);
  expect(none.stdout).not.toContain(theirs.id);
});

it("refuses an existing --out file and an unknown collection", async () => {
  await writeFile(join(ctx.dir, "tgw.yaml"), "stack: gen-bad\n");
  await writeFile(join(ctx.dir, "taken.yaml"), "# mine\n");
  const out = await run("generate", "--out", "taken.yaml");
  expect(out.code).toBe(1);
  expect(await readFile(join(ctx.dir, "taken.yaml"), "utf8")).toBe("# mine\n");
  const bad = await run("generate", "--collection", "api_key");
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("--collection api_key: no such collection");
});
