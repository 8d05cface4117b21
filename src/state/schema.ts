/**
 * The JSON Schema of the state file (./format.ts). Its own module so that `npm run gen` can read it
 * without loading the validator generated from it (./format.gen.ts).
 */
import { STATE_FORMAT_VERSION } from "./snapshot.js";

/** Pattern of a hex SHA-256 digest. */
export const DIGEST = "^[0-9a-f]{64}$";

/** JSON Schema (2020-12) of a state file of format version 1 to 4 (./snapshot.ts STATE_FORMAT_VERSION). */
export const stateSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "tgw:state",
  type: "object",
  required: ["version", "lineage", "serial", "stack", "resources"],
  additionalProperties: false,
  properties: {
    version: { type: "integer", minimum: 1, maximum: STATE_FORMAT_VERSION },
    lineage: { type: "string", minLength: 1 },
    serial: { type: "integer", minimum: 0 },
    stack: { type: "string", minLength: 1 },
    api: {
      type: "object",
      required: ["url"],
      additionalProperties: false,
      properties: {
        url: { type: "string", minLength: 1 },
        key: { type: "string", pattern: "^[0-9a-f]{16}$" },
      },
    },
    listing: {
      type: "object",
      required: ["counts", "unrecorded"],
      additionalProperties: false,
      properties: {
        counts: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
        unrecorded: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
      },
    },
    claims: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
    resources: { type: "object", additionalProperties: { $ref: "#/$defs/record" } },
  },
  $defs: {
    digest: { type: "string", pattern: DIGEST },
    record: {
      type: "object",
      required: ["address", "kind", "id", "fingerprint", "appliedAt"],
      additionalProperties: false,
      properties: {
        address: { type: "string", minLength: 1 },
        kind: { type: "string", minLength: 1 },
        id: { type: "string", minLength: 1 },
        fingerprint: { $ref: "#/$defs/digest" },
        writeOnly: { type: "object", additionalProperties: { $ref: "#/$defs/digest" } },
        dependsOn: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
        tokenDelivered: {
          type: "object",
          required: ["to"],
          additionalProperties: false,
          properties: {
            to: { enum: ["file", "command", "nobody"] },
            host: { type: "string", minLength: 1 },
            digest: { $ref: "#/$defs/digest" },
          },
        },
        appliedAt: { type: "string", format: "date-time" },
      },
    },
  },
} as const;
