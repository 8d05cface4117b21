/**
 * Generates the files derived from schemas/:
 * - src/model/kinds.gen.ts: the kind descriptors (src/model/kinds-derive.ts), which every run reads
 *   instead of the schemas; every generator below uses the descriptors derived now, not that file;
 * - src/model/types.gen.ts: one TypeScript type per `$defs` entry (create, update, put, response) of
 *   every kind, so no field list is typed a second time by hand;
 * - src/model/validators.gen.ts, src/state/format.gen.ts: the configuration's and the state file's
 *   validators as Ajv standalone code;
 * - schemas/config.schema.json: the JSON Schema of configuration files, for editors;
 * - the per-kind sections of docs/configuration.md (field tables and examples);
 * - src/terraform/provider-schema.gen.json: the Terraform provider schema of `tunnelgw`;
 * - src/terraform/protocol.gen.json: the plugin protocol's descriptor, from src/terraform/protocol/*.proto;
 * - src/cdktf/gen/: the CDKTF bindings generated from that provider schema (`@tunnelgw/cdktf`);
 * - docs/terraform/resources/ and data-sources/: the provider's pages in the Registry's layout.
 *
 *   npm run gen            write the files
 *   npm run gen -- --check exit 1 if a file is out of date (test/model/kinds-gen.test.ts, types-gen.test.ts,
 *                          test/config/config-schema.test.ts, config-docs.test.ts,
 *                          test/terraform/provider-schema.test.ts, protocol.test.ts, test/cdktf/bindings.test.ts
 *                          and test/terraform/registry-docs.test.ts check the same)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { useKinds } from "../src/model/kinds.js";
import { deriveKinds, kindsModuleText } from "../src/model/kinds-derive.js";
import { parseProviderSchema } from "../src/terraform/schema.js";
import { generateBindings } from "./gen-cdktf.js";
import { withKindSections } from "./gen-config-docs.js";
import { generateConfigSchema } from "./gen-config-schema.js";
import { protocolDescriptorText } from "./gen-protocol.js";
import { providerSchemaText } from "./gen-provider-schema.js";
import { terraformDocs } from "./gen-terraform-docs.js";
import { generateTypes } from "./gen-types.js";
import { generateStateValidator, generateValidators } from "./gen-validators.js";

// Before anything reads a kind: the generated file is what this run may be about to replace.
const kinds = deriveKinds();
useKinds(kinds);
const docs = fileURLToPath(new URL("../docs/configuration.md", import.meta.url));
const bindingsDir = fileURLToPath(new URL("../src/cdktf/gen/", import.meta.url));
const providerSchema = providerSchemaText();
const targets: Array<[string, string]> = [
  [fileURLToPath(new URL("../src/model/kinds.gen.ts", import.meta.url)), kindsModuleText(kinds)],
  [fileURLToPath(new URL("../src/model/types.gen.ts", import.meta.url)), await generateTypes()],
  [fileURLToPath(new URL("../schemas/config.schema.json", import.meta.url)), generateConfigSchema()],
  [docs, withKindSections(readFileSync(docs, "utf8"))],
  [fileURLToPath(new URL("../src/terraform/provider-schema.gen.json", import.meta.url)), providerSchema],
  [fileURLToPath(new URL("../src/terraform/protocol.gen.json", import.meta.url)), protocolDescriptorText()],
  [fileURLToPath(new URL("../src/model/validators.gen.ts", import.meta.url)), generateValidators()],
  [fileURLToPath(new URL("../src/state/format.gen.ts", import.meta.url)), generateStateValidator()],
];
const bindings = await generateBindings(JSON.parse(providerSchema));
for (const [rel, text] of bindings) targets.push([join(bindingsDir, rel), text]);
const tfDocsDir = fileURLToPath(new URL("../docs/terraform/", import.meta.url));
const tfDocs = terraformDocs(parseProviderSchema(providerSchema));
for (const [rel, text] of tfDocs) targets.push([join(tfDocsDir, rel), text]);
// Files of an earlier generation that this one no longer has (a kind removed from schemas/).
const leftovers = [
  ...listFiles(bindingsDir)
    .filter((rel) => !bindings.has(rel))
    .map((rel) => join(bindingsDir, rel)),
  ...listFiles(tfDocsDir)
    .filter((rel) => !tfDocs.has(rel))
    .map((rel) => join(tfDocsDir, rel)),
];

let stale = false;
const check = process.argv.includes("--check");
for (const [target, text] of targets) {
  if (check) {
    const current = existsSync(target) ? readFileSync(target, "utf8") : "";
    if (current !== text) {
      process.stderr.write(`${target} is out of date: run \`npm run gen\`\n`);
      stale = true;
    }
  } else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    process.stdout.write(`wrote ${target}\n`);
  }
}
for (const file of leftovers) {
  if (check) {
    process.stderr.write(`${file} is no longer generated: run \`npm run gen\`\n`);
    stale = true;
  } else {
    rmSync(file);
    process.stdout.write(`removed ${file}\n`);
  }
}
if (stale) process.exit(1);

/** Files under `dir`, relative to it. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length));
}
