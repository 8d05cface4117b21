/**
 * The one Ajv set-up shared by the reference server and the config validator: JSON Schema 2020-12,
 * every document under `schemas/`, and the project's own keywords and formats:
 *
 * - `maxBytes: N` (strings): at most N bytes of UTF-8. docs/api.md > Limits counts description and
 *   metadata in bytes, which `maxLength` (code points) cannot express.
 * - `exactlyOneOf: [names]` (objects): exactly one of these properties is present and not null
 *   (event destination targets, cloud auth: docs/api.md > Event destination).
 * - formats `pem-certificate-chain`, `pem-private-key`, `ssh-public-key`: parsed for real by
 *   src/crypto; `explainFormat` gives the reason a value failed.
 * - `x-tgw`: annotations only (see ./kinds.ts), ignored by validation.
 */

import { createRequire } from "node:module";
import type { KeywordDefinition } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { Code } from "ajv/dist/compile/codegen/index.js";
import { ajvFormatTable } from "./formats.js";
import { loadSchemaDocuments } from "./schema-files.js";

type Codegen = typeof import("ajv/dist/compile/codegen/index.js");
let codegenLib: Codegen | undefined;
/** Ajv's code builders, loaded with the compiler when a keyword is compiled (most runs compile none). */
const codegen = (): Codegen => {
  codegenLib ??= createRequire(import.meta.url)("ajv/dist/compile/codegen/index.js") as Codegen;
  return codegenLib;
};
const _: Codegen["_"] = (strings, ...args) => codegen()._(strings, ...args);
const str: Codegen["str"] = (strings, ...args) => codegen().str(strings, ...args);

// The project's keywords as code keywords, so that they can be generated into standalone validators.
// `Buffer.byteLength(...)` and the `filter` below run inside the generated code.
const maxBytesKeyword: KeywordDefinition = {
  keyword: "maxBytes",
  type: "string",
  schemaType: "number",
  code(cxt) {
    cxt.fail(_`Buffer.byteLength(${cxt.data}, "utf8") > ${cxt.schemaCode}`);
  },
  error: {
    message: ({ schemaCode, data }) =>
      str`must be at most ${schemaCode} bytes of UTF-8 (is ${_`(Buffer.byteLength(${data}, "utf8"))`} bytes)`,
    params: ({ schemaCode, data }) => _`{limit: ${schemaCode}, bytes: Buffer.byteLength(${data}, "utf8")}`,
  },
};

/** The names of `schemaCode` that `data` has, not null. */
const presentOf = (schemaCode: Code | number | boolean, data: Code) =>
  _`${schemaCode}.filter((n) => ${data}[n] !== undefined && ${data}[n] !== null)`;

const exactlyOneOfKeyword: KeywordDefinition = {
  keyword: "exactlyOneOf",
  type: "object",
  schemaType: "array",
  code(cxt) {
    cxt.fail(_`${presentOf(cxt.schemaCode, cxt.data)}.length !== 1`);
  },
  error: {
    message: ({ schemaCode, data }) => {
      const present = presentOf(schemaCode, data);
      return str`must have exactly one of ${_`${schemaCode}.join(", ")`} (${_`(${present}.length === 0 ? "has none" : "has " + ${present}.join(" and "))`})`;
    },
    params: ({ schemaCode, data }) => _`{names: ${schemaCode}, present: ${presentOf(schemaCode, data)}}`,
  },
};

/**
 * Creates a fresh Ajv instance with every schema under `schemas/` added.
 * @param options.source keep each validator's source, for generating standalone code
 */
export function createAjv(options: { useDefaults?: boolean; source?: boolean } = {}): Ajv2020 {
  // Loaded here, not at import: configuration checks use the generated validators (validators.gen.ts)
  // and most runs never compile a schema.
  const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    useDefaults: options.useDefaults ?? false,
    ...(options.source ? { code: { source: true, esm: true, formats: _`formats` } } : {}),
  });
  for (const [name, format] of Object.entries(ajvFormatTable)) ajv.addFormat(name, format);
  ajv.addVocabulary(["x-tgw"]);
  ajv.addKeyword(maxBytesKeyword);
  ajv.addKeyword(exactlyOneOfKeyword);

  const docs = loadSchemaDocuments();
  for (const doc of docs.byId.values()) ajv.addSchema(doc);
  return ajv;
}

/** Ajv key of one `$defs` entry of a kind, e.g. `schemaKey(kind, "create")`. */
export function schemaKey(schemaId: string, def: "create" | "update" | "put" | "response"): string {
  return `${schemaId}#/$defs/${def}`;
}
