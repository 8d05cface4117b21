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
import type { SchemaValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { parseCertificateChain, parsePrivateKey, parseSshPublicKey } from "../crypto/index.js";
import { loadSchemaDocuments } from "./schema-files.js";

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose `default`
// property is the plugin itself.
const addFormats = ajvFormats.default;

/**
 * Parsers behind the project's formats; each throws an Error whose message says what is wrong,
 * naming the field `what` (e.g. `ca_pem`).
 */
const formatParsers: Record<string, (value: string, what?: string) => unknown> = {
  "pem-certificate-chain": parseCertificateChain,
  "pem-private-key": parsePrivateKey,
  "ssh-public-key": parseSshPublicKey,
};

/**
 * Why `value` does not satisfy `format`, or undefined if it does (or the format is not ours).
 * Validation errors only say "must match format"; callers use this to name the cause.
 * `field` is the name the message uses for the value (default `value`); a leading `<field>: ` is left out,
 * since callers print the field's path in front of the reason.
 */
export function explainFormat(format: string, value: unknown, field?: string): string | undefined {
  const parse = formatParsers[format];
  if (!parse) {
    if (format === "regex" && typeof value === "string") {
      try {
        new RegExp(value);
      } catch (err) {
        return `not a valid regular expression: ${(err as Error).message}`;
      }
    }
    return undefined;
  }
  const what = field ?? "value";
  try {
    parse(String(value), what);
    return undefined;
  } catch (err) {
    // Callers put the field's path in front of the reason: drop the parser's own "<field>: ".
    const message = (err as Error).message;
    return message.startsWith(`${what}: `) ? message.slice(what.length + 2) : message;
  }
}

const byteLength = (s: string) => Buffer.byteLength(s, "utf8");

/** Creates a fresh Ajv instance with every schema under `schemas/` added. */
export function createAjv(options: { useDefaults?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    useDefaults: options.useDefaults ?? false,
  });
  addFormats(ajv);
  for (const [name, parse] of Object.entries(formatParsers)) {
    ajv.addFormat(name, {
      type: "string",
      validate: (value: string) => {
        try {
          parse(value);
          return true;
        } catch {
          return false;
        }
      },
    });
  }
  ajv.addVocabulary(["x-tgw"]);

  const maxBytes: SchemaValidateFunction = (limit: number, data: string) => {
    const bytes = byteLength(data);
    if (bytes <= limit) return true;
    maxBytes.errors = [
      {
        keyword: "maxBytes",
        message: `must be at most ${limit} bytes of UTF-8 (is ${bytes} bytes)`,
        params: { limit, bytes },
      },
    ];
    return false;
  };
  ajv.addKeyword({
    keyword: "maxBytes",
    type: "string",
    schemaType: "number",
    errors: true,
    validate: maxBytes,
  });

  const exactlyOneOf: SchemaValidateFunction = (names: string[], data: Record<string, unknown>) => {
    const present = names.filter((n) => data[n] !== undefined && data[n] !== null);
    if (present.length === 1) return true;
    const has = present.length === 0 ? "has none" : `has ${present.join(" and ")}`;
    exactlyOneOf.errors = [
      {
        keyword: "exactlyOneOf",
        message: `must have exactly one of ${names.join(", ")} (${has})`,
        params: { names, present },
      },
    ];
    return false;
  };
  ajv.addKeyword({
    keyword: "exactlyOneOf",
    type: "object",
    schemaType: "array",
    errors: true,
    validate: exactlyOneOf,
  });

  const docs = loadSchemaDocuments();
  for (const doc of docs.byId.values()) ajv.addSchema(doc);
  return ajv;
}

/** Ajv key of one `$defs` entry of a kind, e.g. `schemaKey(kind, "create")`. */
export function schemaKey(schemaId: string, def: "create" | "update" | "put" | "response"): string {
  return `${schemaId}#/$defs/${def}`;
}
