/**
 * Commands people type by habit (issue 29), as Terraform has them: `tgw version` (and `--json`),
 * `tgw help state rm` showing the sub-command's help, `--no-color` accepted by every command.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { tgw } from "./tgw.js";

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "tgw-habits-"));
});

it("tgw version prints tgw's, Node's and the platform's versions; --json as one document", async () => {
  const human = await tgw(["version"], { cwd });
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(/^tgw v\d+\.\d+\.\d+\non \w+_\w+, Node\.js v\d+/);
  const json = await tgw(["version", "--json"], { cwd });
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual({
    tgw_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    node_version: process.versions.node,
    platform: `${process.platform}_${process.arch}`,
  });
});

it("tgw help state rm shows the help of state rm; an unknown command is named", async () => {
  const help = await tgw(["help", "state", "rm"], { cwd });
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("Usage: tgw state rm [options] <address...>");
  const unknown = await tgw(["help", "state", "nope"], { cwd });
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("unknown command 'state nope'");
});

it("--no-color is accepted before or after the command", async () => {
  for (const args of [
    ["--no-color", "validate", "-f", "."],
    ["validate", "-f", ".", "--no-color"],
  ]) {
    const r = await tgw(args, { cwd });
    expect(r.stderr).not.toContain("unknown option");
  }
});

it("every --json command prints one JSON document on stdout when it fails too", async () => {
  const { writeFile, mkdir } = await import("node:fs/promises");
  const dir = join(cwd, "invalid");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "tgw.yaml"), "api_keys:\n  ci: {descriptio: x}\n");
  const plan = await tgw(["plan", "--json", "-f", "."], { cwd: dir });
  expect(plan.code).toBe(1);
  expect(JSON.parse(plan.stdout)).toMatchObject({
    format_version: 1,
    error: { code: "config", problems: [{ line: 2, path: "api_keys.ci.descriptio" }] },
  });
  expect(plan.stderr).toContain("Error [config]");
  // A command with a failure document of its own prints only that one.
  const validate = await tgw(["validate", "--json", "-f", "."], { cwd: dir });
  expect(JSON.parse(validate.stdout)).toMatchObject({ valid: false });
});
