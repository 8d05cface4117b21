import { expect, it } from "vitest";
import { createAjv } from "../../src/model/index.js";
import { describeErrors } from "../../src/server/validation.js";

it("never echoes a secret field's value in a validation message, while naming the field", () => {
  const schema = {
    type: "object",
    properties: {
      api_key: { type: "string", pattern: "^key-", "x-tgw": { secret: true } },
      site: { type: "string", pattern: "^site-" },
    },
  };
  const validate = createAjv().compile(schema);
  const body = { api_key: "s3cret-value", site: "elsewhere" };
  expect(validate(body)).toBe(false);
  const messages = describeErrors(validate.errors ?? [], schema, body);
  expect(messages).toEqual([
    "api_key must be a string matching ^key- (got (sensitive))",
    'site must be a string matching ^site- (got "elsewhere")',
  ]);
});
