/**
 * Generates the files derived from schemas/:
 * - src/model/types.gen.ts: one TypeScript type per `$defs` entry (create, update, put, response) of
 *   every kind, so no field list is typed a second time by hand;
 * - schemas/config.schema.json: the JSON Schema of configuration files, for editors;
 * - the per-kind sections of docs/configuration.md (field tables and examples);
 * - src/terraform/provider-schema.gen.json: the Terraform provider schema of `tunnelgw`.
 *
 *   npm run gen            write the files
 *   npm run gen -- --check exit 1 if a file is out of date (test/model/types-gen.test.ts,
 *                          test/config/config-schema.test.ts and config-docs.test.ts check the same)
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withKindSections } from "./gen-config-docs.js";
import { generateConfigSchema } from "./gen-config-schema.js";
import { providerSchemaText } from "./gen-provider-schema.js";
import { generateTypes } from "./gen-types.js";

const docs = fileURLToPath(new URL("../docs/configuration.md", import.meta.url));
const targets: Array<[string, string]> = [
  [fileURLToPath(new URL("../src/model/types.gen.ts", import.meta.url)), await generateTypes()],
  [fileURLToPath(new URL("../schemas/config.schema.json", import.meta.url)), generateConfigSchema()],
  [docs, withKindSections(readFileSync(docs, "utf8"))],
  [
    fileURLToPath(new URL("../src/terraform/provider-schema.gen.json", import.meta.url)),
    providerSchemaText(),
  ],
];
let stale = false;
for (const [target, text] of targets) {
  if (process.argv.includes("--check")) {
    const current = existsSync(target) ? readFileSync(target, "utf8") : "";
    if (current !== text) {
      process.stderr.write(`${target} is out of date: run \`npm run gen\`\n`);
      stale = true;
    }
  } else {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${target}\n`);
  }
}
if (stale) process.exit(1);
