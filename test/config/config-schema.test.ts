/**
 * schemas/config.schema.json: generated from the kind schemas (up to date, no field copied), valid for
 * Ajv in strict mode, and in agreement with the validator on what is wrong.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateConfigSchema } from "../../scripts/gen-config-schema.js";
import { createAjv } from "../../src/model/index.js";
import { RESOURCE_OPTIONS } from "../../src/model/resource-options.js";

const path = new URL("../../schemas/config.schema.json", import.meta.url);
const committed = readFileSync(path, "utf8");
const schema = JSON.parse(committed) as { $defs: Record<string, { properties: Record<string, unknown> }> };

describe("schemas/config.schema.json", () => {
  it("is up to date with schemas/kinds (run `npm run gen`)", () => {
    expect(committed === generateConfigSchema()).toBe(true);
  });

  it("refers to the kind schemas for every API field instead of copying them", () => {
    const options = new Set<string>(RESOURCE_OPTIONS.map((o) => o.name));
    for (const [name, def] of Object.entries(schema.$defs)) {
      if (!def.properties) continue;
      for (const [field, fieldSchema] of Object.entries(def.properties)) {
        if (options.has(field)) continue;
        expect(JSON.stringify(fieldSchema), `${name}.${field}`).toMatch(
          new RegExp(`"\\$ref":"kinds/${name}\\.schema\\.json#/\\$defs/(create|put)/properties/${field}"`),
        );
      }
    }
  });

  const validate = createAjv().compile(schema);
  it.each([
    ["an unknown field", { api_keys: { ci: { descripton: "x" } } }, "/api_keys/ci"],
    ["a bad name", { api_keys: { "Bad Name": {} } }, "/api_keys"],
    ["an edge id of the wrong kind", { edges: { tls: { edghts_1: {} } } }, "/edges/tls"],
    ["an unknown module", { edges: { tcp: { edgtcp_1: { mutual_tls: {} } } } }, "/edges/tcp/edgtcp_1"],
    ["the reserved metadata key", { api_keys: { ci: { metadata: { tgw: 1 } } } }, "/api_keys/ci/metadata"],
    ["a missing required field", { ssh_credentials: { k: {} } }, "/ssh_credentials/k"],
    ["a bad ownership", { ownership: "mine" }, "/ownership"],
  ])("rejects %s", (_, doc, at) => {
    expect(validate(doc)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain(at);
  });

  it("accepts interpolations where a pattern, format or enum would refuse them", () => {
    const doc = {
      ip_restrictions: { office: { type: "${env:TYPE}", ip_policy_ids: ["ipp_1"] } },
      edges: { tls: { edgtls_1: { backend: { backend_id: "${ref:tunnel_group_backends.web}" } } } },
      tls_certificates: { app: { certificate_pem: "${file:app.pem}", private_key_pem: "${file:app.key}" } },
    };
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });
});
