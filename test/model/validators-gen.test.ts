/**
 * src/model/validators.gen.ts (the configuration's validators as Ajv standalone code) and
 * src/state/format.gen.ts (the state file's) are what `npm run gen` makes now, and judges like the validators Ajv compiles at run time.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { generateStateValidator, generateValidators } from "../../scripts/gen-validators.js";
import { createAjv, getKind, schemaKey } from "../../src/model/index.js";
import * as generated from "../../src/model/validators.gen.js";

it("src/model/validators.gen.ts is up to date with schemas/ (run `npm run gen`)", () => {
  const current = readFileSync(new URL("../../src/model/validators.gen.ts", import.meta.url), "utf8");
  expect(current === generateValidators()).toBe(true);
});

it("src/state/format.gen.ts is up to date with the state's schema (run `npm run gen`)", () => {
  const current = readFileSync(new URL("../../src/state/format.gen.ts", import.meta.url), "utf8");
  expect(current === generateStateValidator()).toBe(true);
});

it("gives the errors of the validator compiled at run time, keywords and formats included", () => {
  const ajv = createAjv();
  const destination = getKind("event_destination");
  const compiled = ajv.getSchema(schemaKey(destination.schemaId, "create"));
  const standalone = (generated as Record<string, unknown>).event_destination as typeof compiled;
  const bodies = [
    { format: "json", target: { stream_target: { stream_arn: "arn:aws:kinesis:us-east-1:1:stream/s" } } },
    { description: "é".repeat(300), target: {} },
    { target: { stream_target: {}, log_group_target: {} }, metadata: 1 },
  ];
  for (const body of bodies) {
    expect(standalone?.(body)).toBe(compiled?.(body));
    expect(standalone?.errors ?? null).toEqual(compiled?.errors ?? null);
  }
  expect(compiled?.({ target: {} })).toBe(false);
});
