/**
 * Mistakes a new user makes, reported where they are and with a way out: an unterminated quote is
 * reported where the quoted value starts (the YAML parser alone says: at the end of the file), and a
 * mistyped enum value gets a "did you mean" like a mistyped key, and a file past the parser's bounds
 * says which bound (too many nodes: split the file; too deep: an alias loop), not both.
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

  it("a file of more than 200,000 YAML nodes is told to split, an alias loop that it nests too deeply", async () => {
    const big = ["tunnel_group_backends:"];
    for (let i = 0; i < 60_000; i++) big.push(`  b${i}: {description: backend ${i}, labels: {n: "${i}"}}`);
    const [tooBig] = await problems({ "big.yaml": yaml(...big) });
    expect(tooBig).toMatch(
      /^big\.yaml:\d+:\d+: .*the file holds more than 200,000 YAML nodes .*split it into several files/,
    );
    const loop = yaml("a: &a [*a]", "api_keys: {}");
    expect(await problems({ "loop.yaml": loop })).toEqual([
      expect.stringMatching(/nests deeper than 64 levels \(an alias that refers to itself\?\)$/),
    ]);
  });
});
