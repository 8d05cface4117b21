/**
 * What `npm pack` ships: the package's `files` list, packed by npm itself from a copy of the package in
 * which a user's run has left its leftovers (state, token files, the embedded server's data and key,
 * Terraform and CDKTF state and output). None of them may be in the tarball; what the CLI needs at run
 * time (its launcher, the schemas, the example fixtures the embedded server loads) must be.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;

/** Files a user's runs leave in examples/ (all gitignored), each of which holds state or a secret. */
const LEFTOVERS = [
  "examples/complete/.tgw/state.json",
  "examples/complete/.tgw/secrets/ci.token",
  "examples/complete/.tgw/server.sqlite",
  "examples/complete/.tgw/server.key",
  "examples/cdktf/.tgw/state.json",
  "examples/cdktf/terraform.complete-cdktf.tfstate",
  "examples/cdktf/terraform.complete-cdktf.tfstate.backup",
  "examples/cdktf/cdktf.out/stacks/complete-cdktf/cdk.tf.json",
  "examples/cdktf/node_modules/x/index.js",
  "examples/terraform/terraform.tfstate",
  "examples/terraform/.terraform/providers/x",
  "examples/terraform/.terraform.lock.hcl",
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-pack-"));
  await cp(join(root, "package.json"), join(dir, "package.json"));
  for (const d of ["bin", "schemas", "examples"]) await cp(join(root, d), join(dir, d), { recursive: true });
  for (const file of LEFTOVERS) {
    await mkdir(join(dir, file, ".."), { recursive: true });
    await writeFile(join(dir, file), "leftover\n");
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it("npm pack ships no state, token, server data or Terraform state, and ships what tgw needs", async () => {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: dir,
  });
  const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
  expect(files.filter((f) => LEFTOVERS.includes(f))).toEqual([]);
  expect(
    files.filter((f) => /(^|\/)\.tgw\/|\.tfstate|cdktf\.out\/|\.terraform|node_modules\//.test(f)),
  ).toEqual([]);
  expect(files).toEqual(
    expect.arrayContaining([
      "bin/tgw.js",
      "examples/fixtures.yaml",
      "examples/complete/main.yaml",
      "schemas/config.schema.json",
    ]),
  );
});
