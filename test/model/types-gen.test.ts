import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { generateTypes } from "../../scripts/gen-types.js";

it("src/model/types.gen.ts is up to date with schemas/ (run `npm run gen`)", async () => {
  const current = readFileSync(new URL("../../src/model/types.gen.ts", import.meta.url), "utf8");
  expect(current === (await generateTypes())).toBe(true);
});
