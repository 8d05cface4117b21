/**
 * src/model/kinds.gen.ts (the kind descriptors a run reads) is what `npm run gen` derives from schemas/
 * now, and gives the same descriptors as deriving them at run time.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { allKinds } from "../../src/model/index.js";
import { deriveKinds, kindsModuleText } from "../../src/model/kinds-derive.js";

it("src/model/kinds.gen.ts is up to date with schemas/ (run `npm run gen`)", () => {
  const current = readFileSync(new URL("../../src/model/kinds.gen.ts", import.meta.url), "utf8");
  expect(current === kindsModuleText(deriveKinds())).toBe(true);
});

it("allKinds() holds the derived descriptors, sets included", () => {
  const derived = deriveKinds();
  expect([...allKinds().keys()]).toEqual(derived.map((k) => k.kind));
  for (const k of derived) {
    const d = allKinds().get(k.kind);
    expect({ ...d, operations: [...(d?.operations ?? [])], defs: [...(d?.defs ?? [])] }).toEqual(k);
  }
  expect(allKinds().get("api_key")?.operations.has("create")).toBe(true);
  expect(allKinds().get("saml")?.defs.has("put")).toBe(true);
});
