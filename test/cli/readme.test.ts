/**
 * What a new user meets first, checked against the repository: the README's tour works as printed
 * (its `tgw serve` loads the fixtures the examples refer to; it says how to get `tgw` on the PATH),
 * and `engines` promises no Node.js the dependencies refuse.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const readme = readFileSync(new URL("README.md", root), "utf8");
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const require = createRequire(import.meta.url);
/** semver ships no types here; the two functions used. */
const semver = require("semver") as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

describe("README tour", () => {
  it("starts tgw serve with the fixtures the examples refer to", () => {
    const serves = readme.split("\n").filter((l) => /^tgw serve\b/.test(l));
    expect(serves.length).toBeGreaterThan(0);
    for (const line of serves) expect(line).toContain("--fixtures examples/fixtures.yaml");
  });

  it("says how to run the bare tgw of the tour (npx tgw, or npm link)", () => {
    const tour = readme.slice(readme.indexOf("## A short tour"));
    expect(tour).toMatch(/npx tgw/);
    expect(tour).toMatch(/npm link/);
  });
});

describe("package.json engines", () => {
  it("promises no Node.js that a runtime dependency refuses (its lowest version satisfies them all)", () => {
    const ours = semver.minVersion(pkg.engines.node as string)?.version as string;
    for (const dep of Object.keys(pkg.dependencies)) {
      let theirs: string | undefined;
      try {
        theirs = require(`${dep}/package.json`).engines?.node;
      } catch {
        continue; // a package that does not export its package.json
      }
      if (theirs === undefined) continue;
      expect(semver.satisfies(ours, theirs), `${dep} needs node ${theirs}; engines allows ${ours}`).toBe(
        true,
      );
    }
  });
});
