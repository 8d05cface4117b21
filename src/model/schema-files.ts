/**
 * Reads the JSON Schema documents under `schemas/` (the single source of truth for every kind's
 * fields) and resolves `$ref`s between them. No validation here: see ./ajv.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A JSON Schema node, as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** The `schemas/` folder of this package (src/model and dist/model are both two levels down). */
export const schemasDir: string = fileURLToPath(new URL("../../schemas/", import.meta.url));

/** Every schema document, keyed by its `$id`. */
export interface SchemaDocuments {
  common: JsonSchema;
  /** Kinds docs/api.md documents (schemas/kinds). */
  kinds: JsonSchema[];
  /** Objects docs/api.md only references by id (schemas/referenced). */
  referenced: JsonSchema[];
  byId: Map<string, JsonSchema>;
}

let cached: SchemaDocuments | undefined;

/**
 * Loads every schema document once per process.
 * @throws Error if a file is not valid JSON or has no `$id` (a packaging bug).
 */
export function loadSchemaDocuments(): SchemaDocuments {
  if (cached) return cached;
  const read = (rel: string): JsonSchema => {
    const doc = JSON.parse(readFileSync(`${schemasDir}${rel}`, "utf8")) as JsonSchema;
    if (typeof doc.$id !== "string") throw new Error(`schemas/${rel} has no $id`);
    return doc;
  };
  const folder = (name: string) =>
    readdirSync(`${schemasDir}${name}`)
      .filter((f) => f.endsWith(".schema.json"))
      .sort()
      .map((f) => read(`${name}/${f}`));
  const common = read("common.schema.json");
  const kinds = folder("kinds");
  const referenced = folder("referenced");
  const byId = new Map<string, JsonSchema>();
  for (const doc of [common, ...kinds, ...referenced]) byId.set(doc.$id as string, doc);
  cached = { common, kinds, referenced, byId };
  return cached;
}

/**
 * Resolves a `$ref` found in the document `baseId` to the node it points at.
 * @returns the target node and the `$id` of the document that holds it (for refs inside it).
 * @throws Error if the document or the JSON pointer does not exist.
 */
export function resolveRef(baseId: string, ref: string): { node: JsonSchema; docId: string } {
  const key = `${baseId} ${ref}`;
  let target = resolvedRefs.get(key);
  if (target === undefined) {
    target = resolveRefOnce(baseId, ref);
    resolvedRefs.set(key, target);
  }
  return target;
}

// The same few refs are met hundreds of times (every kind's description, metadata...): a URL parse each.
const resolvedRefs = new Map<string, { node: JsonSchema; docId: string }>();

function resolveRefOnce(baseId: string, ref: string): { node: JsonSchema; docId: string } {
  const url = new URL(ref, baseId);
  const pointer = decodeURIComponent(url.hash.replace(/^#/, ""));
  url.hash = "";
  const docId = url.toString();
  const doc = loadSchemaDocuments().byId.get(docId);
  if (!doc) throw new Error(`$ref ${ref} in ${baseId}: no schema ${docId}`);
  let node: unknown = doc;
  for (const part of pointer.split("/").slice(1)) {
    node = (node as Record<string, unknown>)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  if (!node || typeof node !== "object") throw new Error(`$ref ${ref} in ${baseId}: nothing at ${pointer}`);
  return { node: node as JsonSchema, docId };
}

/**
 * Returns `node` with every `$ref` replaced by a copy of its target (recursively), sibling
 * keywords of a `$ref` winning over the target's (e.g. a field's own `default` or `description`).
 * The schemas have no recursive types, so this terminates.
 */
export function inlineRefs(node: JsonSchema, docId: string): JsonSchema {
  const walk = (value: unknown, base: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, base));
    if (!value || typeof value !== "object") return value;
    const obj = value as JsonSchema;
    let out: JsonSchema = {};
    if (typeof obj.$ref === "string") {
      const target = resolveRef(base, obj.$ref);
      out = walk(target.node, target.docId) as JsonSchema;
    }
    for (const [k, v] of Object.entries(obj)) {
      if (k === "$ref") continue;
      out[k] = k === "x-tgw" && out[k] ? { ...(out[k] as object), ...(v as object) } : walk(v, base);
    }
    return out;
  };
  return walk(node, docId) as JsonSchema;
}
