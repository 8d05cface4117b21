/**
 * Mistakes a new user makes, reported where they are and with a way out: an unterminated quote is
 * reported where the quoted value starts (the YAML parser alone says: at the end of the file), and a
 * mistyped enum value gets a "did you mean" like a mistyped key.
 */
import { describe, expect, it } from "vitest";
import { problems, yaml } from "./helpers.js";

describe("user errors", () => {
  it("an unterminated quote points at the opening quote, not the end of the file", async () => {
    const text = yaml(
      "api_keys:",
      "  ci:",
      '    description: "Deploys from CI',
      "  ops:",
      "    description: Operations",
      "tunnel_group_backends:",
      "  web: {}",
    );
    expect(await problems({ "a.yaml": text })).toEqual([
      'a.yaml:3:18: YAML syntax error: Missing closing "quote',
    ]);
  });

  it("a mistyped enum value suggests the closest allowed one", async () => {
    const text = yaml(
      "ip_restrictions:",
      "  office:",
      "    type: dashbord",
      "    ip_policy_ids: [ipp_example01]",
    );
    expect((await problems({ "a.yaml": text }))[0]).toMatch(
      /^a\.yaml:3:11: ip_restrictions\.office\.type: must be .*"dashboard".* \(did you mean dashboard\?\)$/,
    );
  });
});
