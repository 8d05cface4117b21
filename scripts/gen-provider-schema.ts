/** Builds the text of src/terraform/provider-schema.gen.json from schemas/ (see scripts/gen.ts). */
import { buildProviderSchema } from "../src/terraform/provider-schema.js";

export function providerSchemaText(): string {
  return `${JSON.stringify(buildProviderSchema(), null, 2)}\n`;
}
