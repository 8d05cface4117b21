/**
 * The resource model: kind descriptors and validators derived from `schemas/`, and the TypeScript
 * types generated from the same schemas (./types.gen.ts, `npm run gen`).
 */
export { createAjv, schemaKey } from "./ajv.js";
export { ajvFormatTable, explainFormat, parserFormat } from "./formats.js";
export {
  allKinds,
  collections,
  type FieldDescriptor,
  fieldsWhere,
  fillPath,
  getKind,
  type KindDescriptor,
  kindOfId,
  type ModuleParent,
  moduleKinds,
  type Normalization,
  type Operation,
  specKinds,
} from "./kinds.js";
export {
  canonicalJson,
  decodeMetadata,
  encodeMetadata,
  isTerraformMarker,
  MARKER_CREATE_PLACEHOLDER,
  MARKER_KEY,
  MARKER_LINEAGE_PLACEHOLDER,
  MARKER_SERIAL_PLACEHOLDER,
  markerIn,
  normalizeUserMetadata,
  type OwnershipMarker,
  TERRAFORM_STACK_PREFIX,
  type UserMetadata,
  userMetadataObject,
  withoutMarker,
} from "./metadata.js";
export { inlineRefs, type JsonSchema, loadSchemaDocuments, resolveRef, schemasDir } from "./schema-files.js";
