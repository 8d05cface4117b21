/**
 * `import:` entries, as a user writes them, through the CLI against a reference server: objects made
 * outside tgw are adopted by the plan (Terraform's `import` blocks), keeping their ids; the entries
 * stay harmless after the apply; bad entries are refused before any change.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-import-entries-");

const api = ctx.api;
const run = ctx.run;
const configure = (stack: string, keys: Record<string, string>, imports: [string, string][]) =>
  writeFile(
    join(ctx.dir, "tgw.yaml"),
    [
      `stack: ${stack}`,
      "api_keys:",
      ...Object.entries(keys).map(([k, d]) => `  ${k}: {description: "${d}", token_kept_elsewhere: true}`),
      ...(imports.length > 0 ? ["import:", ...imports.map(([to, id]) => `  - {to: ${to}, id: ${id}}`)] : []),
      "",
    ].join("\n"),
  );

it("two keys made by hand are imported by the plan, one updated in the same PATCH; their ids stay; the entries then do nothing", async () => {
  const a = (await api("POST", "/api_keys", { description: "made by hand" })).body;
  const b = (await api("POST", "/api_keys", { description: "second" })).body;
  await configure("imports", { a: "made by hand", b: "second, now managed" }, [
    ["api_keys.a", String(a.id)],
    ["api_keys.b", String(b.id)],
  ]);
  const plan = await run("plan", "--detailed-exitcode");
  expect(plan.stderr).not.toContain("Error");
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain(`api_keys.a will be imported and updated in place (imported from ${a.id}`);
  expect(plan.stdout).toContain("Plan: 2 to import, 0 to create, 2 to update, 0 to replace, 0 to delete.");
  const json = JSON.parse((await run("plan", "--json")).stdout) as {
    changes: { address: string; importing?: { id: string } }[];
  };
  expect(json.changes.find((c) => c.address === "api_keys.b")?.importing).toEqual({ id: b.id });

  const applied = await run("apply", "--auto-approve");
  expect(applied.stderr).not.toContain("Error");
  expect(applied.code).toBe(0);
  const liveA = (await api("GET", `/api_keys/${a.id}`)).body;
  const liveB = (await api("GET", `/api_keys/${b.id}`)).body;
  expect(JSON.parse(String(liveA.metadata))).toMatchObject({
    tgw: { stack: "imports", address: "api_keys.a" },
  });
  expect(liveB.description).toBe("second, now managed");
  const again = await run("plan", "--detailed-exitcode");
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
  // Without the entries, the keys stay managed: nothing is created.
  await configure("imports", { a: "made by hand", b: "second, now managed" }, []);
  expect((await run("plan", "--detailed-exitcode")).code).toBe(0);
  const keys = (await api("GET", "/api_keys?limit=100")).body.keys as { id: string }[];
  expect(keys.filter((k) => k.id === a.id || k.id === b.id)).toHaveLength(2);
});

it("refuses before any change: a missing object, one of another stack, an address that manages another object; and validate reports bad entries", async () => {
  const other = (
    await api("POST", "/api_keys", {
      description: "theirs",
      metadata: JSON.stringify({ tgw: { stack: "other", address: "api_keys.x" } }),
    })
  ).body;
  await configure("imports-bad", { a: "a" }, [["api_keys.a", "ak_2NoSuchKey0000000000000000"]]);
  let plan = await run("plan");
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain("there is no API key with id ak_2NoSuchKey0000000000000000");
  await configure("imports-bad", { a: "a" }, [["api_keys.a", String(other.id)]]);
  plan = await run("plan");
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(`it carries the ownership marker of stack "other"`);

  await configure("imports-bad", { a: "a" }, []);
  expect((await run("apply", "--auto-approve")).code).toBe(0);
  const mine = (await api("POST", "/api_keys", { description: "another" })).body;
  await configure("imports-bad", { a: "a" }, [["api_keys.a", String(mine.id)]]);
  plan = await run("plan");
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/api_keys\.a already manages ak_/);

  const cases: [[string, string][], string][] = [
    [[["api_keys.zz", String(mine.id)]], "api_keys.zz is not in the configuration"],
    [[["api_keys.a", "ipp_2Ab3Cd00000000000000000000"]], "is not the id of a"],
    [
      [
        ["api_keys.a", String(mine.id)],
        ["api_keys.a", String(other.id)],
      ],
      "api_keys.a is imported twice",
    ],
  ];
  for (const [imports, message] of cases) {
    await configure("imports-bad", { a: "a" }, imports);
    const validated = await run("validate");
    expect(validated.stderr, message).toContain(message);
    expect(validated.stderr).toMatch(/tgw\.yaml:\d+:\d+/);
    expect(validated.code).toBe(1);
  }
});
