/**
 * Request and response validation compiled from `schemas/` with the project's Ajv (src/model), and the
 * translation of Ajv's errors into messages that name the field and the limit, e.g.
 * `description is 300 bytes of UTF-8, the limit is 255`, `unknown field "descriptoin"`,
 * `target: must have exactly one of delivery_stream_target, stream_target, ... (has a and b)`.
 *
 * Two Ajv instances: create and module-put requests get the schema `default`s filled in
 * (`enabled: true`, `description: ""`...); update (PATCH) requests must not, or an omitted field
 * would be reset to its default.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { CryptoInputError } from "../crypto/errors.js";
import { parsePrivateKey } from "../crypto/private-key.js";
import { parseSshPublicKey } from "../crypto/ssh.js";
import {
  createAjv,
  inlineRefs,
  type JsonSchema,
  type KindDescriptor,
  loadSchemaDocuments,
  parserFormat,
  schemaKey,
} from "../model/index.js";
import { parseCertificateChain } from "./certificate-info.js";
import { type ApiProblem, problems } from "./errors.js";

/** Which request shape of a kind: `$defs.create`, `$defs.update` or `$defs.put`. */
export type RequestDef = "create" | "update" | "put";

/** A Fastify-compatible validator: the checked (and defaulted) body, or the problem to answer. */
export type BodyValidator = (data: unknown) => { value: Record<string, unknown> } | { error: ApiProblem };

// Our formats, parsed with the field's own name so the crypto messages name the right field.
const formatReasons: Record<string, (value: string, field: string) => unknown> = {
  "pem-certificate-chain": parseCertificateChain,
  "pem-private-key": parsePrivateKey,
  "ssh-public-key": parseSshPublicKey,
};

/**
 * createAjv, with a certificate chain valid only when its leaf can also be described: the server
 * answers with the leaf's fields (./resources/kinds/tls-certificate.ts), which a configuration check
 * does not need (src/crypto/x509.ts).
 */
function serverAjv(options: { useDefaults?: boolean } = {}): ReturnType<typeof createAjv> {
  const ajv = createAjv(options);
  ajv.addFormat(
    "pem-certificate-chain",
    parserFormat((value) => parseCertificateChain(value)),
  );
  return ajv;
}

/** Compiled validators for every kind, made once per app. */
export class Validators {
  readonly #withDefaults = serverAjv({ useDefaults: true });
  readonly #plain = serverAjv();
  readonly #requests = new Map<string, BodyValidator>();
  readonly #responses = new Map<string, ValidateFunction>();

  /**
   * The validator of one request shape. A missing body counts as `{}` (a POST without body is a
   * create with every field omitted); anything but a JSON object is refused.
   * @throws Error if the kind has no such `$defs` entry (a programming error)
   */
  request(kind: KindDescriptor, def: RequestDef): BodyValidator {
    const key = schemaKey(kind.schemaId, def);
    const cached = this.#requests.get(key);
    if (cached) return cached;
    const ajv = def === "update" ? this.#plain : this.#withDefaults;
    const validate = ajv.getSchema(key);
    if (!validate) throw new Error(`no schema ${key}`);
    const root = defSchema(kind, def);
    // Ajv fills defaults written next to a property, not those inside a `$ref` target (the common
    // `description`, `metadata`, `enabled`): the kind's fields have them inlined.
    const defaults = def === "update" ? [] : kind.fields.filter((f) => f.default !== undefined);
    const validator: BodyValidator = (data) => {
      const body = data ?? {};
      if (typeof body !== "object" || Array.isArray(body)) {
        return { error: problems.invalidFields(["the request body must be a JSON object"]) };
      }
      if (validate(body)) {
        const value = body as Record<string, unknown>;
        for (const f of defaults) if (value[f.name] === undefined) value[f.name] = structuredClone(f.default);
        return { value };
      }
      return { error: problems.invalidFields(describeErrors(validate.errors ?? [], root, body)) };
    };
    this.#requests.set(key, validator);
    return validator;
  }

  /**
   * Checks a response body against the kind's `$defs.response` (used when the app runs with
   * `checkResponses`, as in tests): the messages of the failures, or undefined when it is valid.
   */
  responseErrors(kind: KindDescriptor, body: unknown): string[] | undefined {
    const key = schemaKey(kind.schemaId, "response");
    let validate = this.#responses.get(key);
    if (!validate) {
      validate = this.#plain.getSchema(key);
      if (!validate) throw new Error(`no schema ${key}`);
      this.#responses.set(key, validate);
    }
    if (validate(body)) return undefined;
    return describeErrors(validate.errors ?? [], defSchema(kind, "response"), body);
  }
}

/** The `$defs` entry of a kind with every `$ref` inlined (to find `x-tgw.hint` for a failed pattern). */
function defSchema(kind: KindDescriptor, def: string): JsonSchema {
  const doc = loadSchemaDocuments().byId.get(kind.schemaId);
  const node = (doc?.$defs as Record<string, JsonSchema> | undefined)?.[def];
  if (!doc || !node) throw new Error(`no $defs.${def} in ${kind.schemaId}`);
  return inlineRefs(node, kind.schemaId);
}

/**
 * Human messages for Ajv errors, one per failed rule, each naming the field by its path
 * (`target.log_group_target.auth`, `acl[2]`) and, for limits, the limit and the actual size.
 * @param root the inlined schema that was validated (for pattern hints)
 * @param data the validated value (to report sizes and offending values)
 */
export function describeErrors(errors: ErrorObject[], root: JsonSchema, data: unknown): string[] {
  const out: string[] = [];
  for (const err of errors) {
    const message = describeError(err, root, data);
    if (message !== undefined && !out.includes(message)) out.push(message);
  }
  return out.length > 0 ? out : ["the request body is not valid"];
}

function describeError(err: ErrorObject, root: JsonSchema, data: unknown): string | undefined {
  const segments = err.instancePath.split("/").slice(1).map(unescapePointer);
  const field = fieldName(segments);
  const value = valueAt(data, segments);
  const node = schemaAt(root, segments);
  const p = err.params as Record<string, unknown>;
  // A propertyNames failure is reported twice: the inner rule (with `propertyName`) and a summary.
  if (err.keyword === "propertyNames") return undefined;
  const propertyName = (err as { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    const names = (node?.propertyNames ?? {}) as JsonSchema;
    const hint = (names["x-tgw"] as { hint?: string } | undefined)?.hint;
    return `${field}: key ${JSON.stringify(propertyName)} must be ${hint ?? "a valid name"}`;
  }
  const subject = segments.length === 0 ? "the request body" : field;
  // Messages echo the offending value, except a secret's (docs/design.md section 3.4): the CLI prints them.
  const secret = (node?.["x-tgw"] as { secret?: boolean } | undefined)?.secret === true;
  const got = secret ? "(sensitive)" : JSON.stringify(value);
  switch (err.keyword) {
    case "additionalProperties":
      return `unknown field ${JSON.stringify(joinField(segments, String(p.additionalProperty)))}`;
    case "required":
      return `missing required field ${JSON.stringify(joinField(segments, String(p.missingProperty)))}`;
    case "type":
      return `${subject} must be ${typeWords(String(p.type))}`;
    case "maxBytes":
      return `${subject} is ${p.bytes} bytes of UTF-8, the limit is ${p.limit}`;
    case "maxLength":
      return `${subject} is ${[...String(value)].length} characters, the limit is ${p.limit}`;
    case "minLength":
      return p.limit === 1
        ? `${subject} must not be empty`
        : `${subject} must be at least ${p.limit} characters`;
    case "enum":
      return `${subject} must be one of ${(p.allowedValues as unknown[]).map((v) => String(v)).join(", ")} (got ${got})`;
    case "minItems":
      return `${subject} must have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`;
    case "maxItems":
      return `${subject} must have at most ${p.limit} items`;
    case "minimum":
    case "maximum":
      return `${subject} must be ${err.keyword === "minimum" ? "at least" : "at most"} ${p.limit} (got ${got})`;
    case "pattern": {
      const hint = (node?.["x-tgw"] as { hint?: string } | undefined)?.hint;
      return `${subject} must be ${hint ?? `a string matching ${p.pattern}`} (got ${got})`;
    }
    case "format":
      return formatMessage(String(p.format), subject, value, got);
    case "exactlyOneOf":
      return `${subject}: ${err.message}`;
    default:
      return `${subject} ${err.message ?? "is not valid"}`;
  }
}

function formatMessage(format: string, field: string, value: unknown, got: string): string {
  const parse = formatReasons[format];
  if (parse) {
    try {
      parse(String(value), field);
    } catch (err) {
      if (err instanceof CryptoInputError) return err.message;
      throw err;
    }
  }
  if (format === "regex") {
    try {
      new RegExp(String(value), "u");
    } catch (err) {
      return `${field} is not a valid regular expression: ${(err as Error).message}`;
    }
    return `${field} is not a valid regular expression`;
  }
  if (format === "date-time") {
    return `${field} must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z (got ${got})`;
  }
  if (format === "uri") return `${field} must be an absolute URL (got ${got})`;
  return `${field} must be a valid ${format}`;
}

function typeWords(type: string): string {
  const words: Record<string, string> = {
    string: "a string",
    object: "an object",
    array: "a list",
    boolean: "true or false",
    integer: "an integer",
    number: "a number",
    null: "null",
  };
  return type
    .split(",")
    .map((t) => words[t] ?? t)
    .join(" or ");
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** `["target", "auth"]` -> `target.auth`; `["acl", "2"]` -> `acl[2]`. */
function fieldName(segments: string[]): string {
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc === "" ? s : `${acc}.${s}`), "");
}

function joinField(segments: string[], name: string): string {
  return fieldName([...segments, name]);
}

function valueAt(data: unknown, segments: string[]): unknown {
  let v = data;
  for (const s of segments) v = v && typeof v === "object" ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}

function schemaAt(root: JsonSchema, segments: string[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = root;
  for (const s of segments) {
    if (!node) return undefined;
    const props = node.properties as Record<string, JsonSchema> | undefined;
    if (props?.[s]) node = props[s];
    else if (/^\d+$/.test(s) && node.items && typeof node.items === "object") node = node.items as JsonSchema;
    else if (node.additionalProperties && typeof node.additionalProperties === "object")
      node = node.additionalProperties as JsonSchema;
    else return undefined;
  }
  return node;
}
