/**
 * Generates src/model/types.gen.ts: one TypeScript type per `$defs` entry (create, update, put,
 * response) of every kind in schemas/, so no field list is typed a second time by hand.
 *
 *   npm run gen            write the file
 *   npm run gen -- --check exit 1 if the file is out of date (test/model/types-gen.test.ts runs this)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateTypes } from "./gen-types.js";

const target = fileURLToPath(new URL("../src/model/types.gen.ts", import.meta.url));
const text = await generateTypes();
if (process.argv.includes("--check")) {
  const current = readFileSync(target, "utf8");
  if (current !== text) {
    process.stderr.write("src/model/types.gen.ts is out of date: run `npm run gen`\n");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
