/**
 * docs/configuration.md: its per-kind sections are generated from schemas/ and examples/kinds/, and
 * must be up to date.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { withKindSections } from "../../scripts/gen-config-docs.js";
import { loadDesiredState } from "../../src/config/index.js";
import { collections, moduleKinds } from "../../src/model/index.js";
import { KEYS, writeTree } from "./helpers.js";

const doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");

it("docs/configuration.md is up to date with schemas/ and examples/kinds (run `npm run gen`)", () => {
  expect(doc === withKindSections(doc)).toBe(true);
});

it("has a section for every collection and every module", () => {
  for (const k of collections().values()) expect(doc).toContain(`### \`${k.collection}\`: ${k.title}`);
  for (const k of moduleKinds()) expect(doc).toContain(`### \`${k.module?.configKey}\`: ${k.title}`);
});

it("the complete example at the top of docs/configuration.md is valid", async () => {
  const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  expect(example).toContain("tunnel_group_backends:");
  const cwd = writeTree({
    "web-platform/main.yaml": example,
    "web-platform/certs/app.pem": readFileSync(`${KEYS}app.example.com.crt.pem`, "utf8"),
    "web-platform/certs/app.key": readFileSync(`${KEYS}app.example.com.key.pem`, "utf8"),
  });
  const desired = await loadDesiredState(["web-platform"], { cwd, env: { TGW_VAR_MONITORING_API_KEY: "k" } });
  expect(desired.resources).toHaveLength(8); // 5 resources, 3 modules
});
