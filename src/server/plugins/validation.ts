/**
 * Validation plugin: request bodies are checked by the validators compiled from `schemas/` with the
 * project's Ajv (../validation.ts). A route declares `schema: { body: requestSchema(kind, def) }`;
 * the compiler turns that into the validator of that kind's `$defs.<def>`.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { getKind, type KindDescriptor, loadSchemaDocuments, schemaKey } from "../../model/index.js";
import { type RequestDef, Validators } from "../validation.js";

/** The route schema of a request body: a `$ref` to the kind's `$defs.<def>`. */
export function requestSchema(kind: KindDescriptor, def: RequestDef): { $ref: string } {
  return { $ref: schemaKey(kind.schemaId, def) };
}

function kindOfSchemaId(schemaId: string): KindDescriptor {
  const doc = loadSchemaDocuments().byId.get(schemaId);
  const name = (doc?.["x-tgw"] as { kind?: string } | undefined)?.kind;
  if (name === undefined) throw new Error(`no kind for schema ${schemaId}`);
  return getKind(name);
}

/** Options of this plugin (registered by ../app.ts). */
export interface ValidationPluginOptions {
  /** Check every response body against `$defs.response` (a bug answers 500). */
  checkResponses?: boolean | undefined;
}

// Compiled validators are pure functions of the schemas: one set per process serves every app
// (tests start many servers; compiling costs a few hundred milliseconds).
let shared: Validators | undefined;

async function validationPlugin(app: FastifyInstance, opts: ValidationPluginOptions): Promise<void> {
  shared ??= new Validators();
  const validators = shared;
  app.decorate("validators", validators);
  app.decorate("checkResponses", opts.checkResponses === true);
  app.setValidatorCompiler(({ schema }) => {
    const ref = (schema as { $ref?: string }).$ref ?? "";
    const [schemaId = "", pointer = ""] = ref.split("#");
    const def = pointer.replace("/$defs/", "") as RequestDef;
    return validators.request(kindOfSchemaId(schemaId), def);
  });
}

export default fp(validationPlugin, { name: "tgw-validation" });
