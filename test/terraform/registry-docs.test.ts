/**
 * The provider's pages in the Registry's layout (docs/terraform/resources/, data-sources/; issue 27
 * §2.5) are current: what scripts/gen-terraform-docs.ts makes from the provider schema now, one page
 * per resource type and data source, each attribute listed, no page of a type that is gone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { terraformDocs } from "../../scripts/gen-terraform-docs.js";
import { loadProviderSchema } from "../../src/terraform/schema.js";

const DIR = fileURLToPath(new URL("../../docs/terraform/", import.meta.url));

it("has one current page per resource type and data source (npm run gen writes them)", () => {
  const schema = loadProviderSchema();
  const pages = terraformDocs(schema);
  expect(pages.size).toBe(Object.keys(schema.resources).length + Object.keys(schema.dataSources).length);
  const stale = [...pages].filter(([rel, text]) => {
    const file = join(DIR, rel);
    return !existsSync(file) || readFileSync(file, "utf8") !== text;
  });
  expect(
    stale.map(([rel]) => rel),
    "out of date: run npm run gen",
  ).toEqual([]);
  const onDisk = ["resources", "data-sources"].flatMap((d) =>
    readdirSync(join(DIR, d)).map((f) => `${d}/${f}`),
  );
  expect(onDisk.filter((rel) => !pages.has(rel))).toEqual([]);
  for (const [type, entry] of Object.entries(schema.resources)) {
    const text = pages.get(`resources/${type.slice("tunnelgw_".length)}.md`) ?? "";
    for (const name of Object.keys(entry.block.attributes ?? {})) expect(text).toContain(`- \`${name}\` (`);
    expect(text).toContain(`terraform import ${type}.example`);
  }
});
