/**
 * Every example configuration under examples/ (except the reference server's fixtures and the key
 * material) is valid: each file on its own, and each directory as one configuration. The editor schema
 * (schemas/config.schema.json) accepts them too.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { createAjv } from "../../src/model/index.js";
import { copyExamples, exampleConfigFiles } from "../helpers/examples.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const SKIPPED = /^(\..*|node_modules|cdktf\.out)$/;

function exampleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    // keys/ holds key material; dot folders, node_modules and cdktf.out are a run's leftovers.
    if (d.isDirectory()) return d.name === "keys" || SKIPPED.test(d.name) ? [] : exampleFiles(path);
    return /\.ya?ml$/.test(d.name) && path !== join(EXAMPLES, "fixtures.yaml") ? [path] : [];
  });
}

const files = exampleFiles(EXAMPLES).map((f) => relative(ROOT, f));
const dirs = [...new Set(files.map((f) => dirname(f)))];
const loadExample = (path: string) => loadConfig([path], { cwd: ROOT, env: {} });

describe("examples", () => {
  it("cover every collection and module, one file per kind", () => {
    expect(files.filter((f) => f.startsWith("examples/kinds/")).length).toBe(17);
    expect(dirs).toContain("examples/complete");
  });

  // examples/complete is one configuration split over files that refer to each other.
  it.each(files.filter((f) => f.startsWith("examples/kinds/")))("%s is valid on its own", async (file) => {
    const { desired } = await loadExample(file);
    // examples/kinds/<kind>.yaml shows that kind.
    const kind = file.replace(/^examples\/kinds\/(.+)\.yaml$/, "$1");
    expect(desired.resources.map((r) => r.kind)).toContain(kind);
  });

  it.each(dirs)("%s is valid as one configuration (every file in it)", async (dir) => {
    const { configFiles } = await loadExample(dir);
    expect(configFiles.map((f) => relative(ROOT, f))).toEqual(files.filter((f) => dirname(f) === dir));
  });

  it("examples/complete uses every kind, refs between resources, and a token file", async () => {
    const { desired } = await loadExample("examples/complete");
    const kinds = new Set(desired.resources.map((r) => r.kind));
    const { collections, moduleKinds } = await import("../../src/model/index.js");
    for (const k of [...collections().values(), ...moduleKinds()]) expect(kinds, k.kind).toContain(k.kind);
    expect(desired.resources.filter((r) => r.dependsOn.length > 0).length).toBeGreaterThanOrEqual(3);
    expect(desired.resources.find((r) => r.address === "api_keys.ci")?.options.token_file).toMatch(
      /examples\/complete\/\.tgw\/secrets\/ci\.token$/,
    );
  });

  it.each(files)("%s is accepted by schemas/config.schema.json", (file) => {
    const ajv = createAjv();
    const schema = JSON.parse(readFileSync(join(ROOT, "schemas/config.schema.json"), "utf8"));
    const validate = ajv.compile(schema);
    expect(
      validate(parse(readFileSync(join(ROOT, file), "utf8"), { merge: true })),
      JSON.stringify(validate.errors),
    ).toBe(true);
  });

  it.each(files)("%s names the editor schema on its first line", (file) => {
    expect(readFileSync(join(ROOT, file), "utf8").split("\n")[0]).toBe(
      "# yaml-language-server: $schema=../../schemas/config.schema.json",
    );
  });
});

describe("what a user's run leaves in examples/ is invisible to the tests", () => {
  it("copyExamples leaves out .tgw/ and exampleConfigFiles reads only YAML files", async () => {
    const from = await mkdtemp(join(tmpdir(), "tgw-leftovers-"));
    await mkdir(join(from, "complete", ".tgw", "secrets"), { recursive: true });
    await writeFile(join(from, "complete", "main.yaml"), "stack: x\n");
    await writeFile(join(from, "complete", ".tgw", "state.json"), "{}");
    await writeFile(join(from, "complete", ".tgw", "secrets", "ci.token"), "secret");
    await writeFile(join(from, "complete", "terraform.tfstate"), "{}");
    await mkdir(join(from, "complete", "dir.yaml"));
    const to = join(from, "..", `${basename(from)}-copy`);
    await copyExamples(to, from);
    expect(existsSync(join(to, "complete", "main.yaml"))).toBe(true);
    expect(existsSync(join(to, "complete", ".tgw"))).toBe(false);
    expect(existsSync(join(to, "complete", "terraform.tfstate"))).toBe(false);
    expect(exampleConfigFiles(join(from, "complete"))).toEqual([join(from, "complete", "main.yaml")]);
    await rm(from, { recursive: true });
    await rm(to, { recursive: true });
  });
});
