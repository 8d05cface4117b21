/**
 * User metadata may not use the top-level key `tgw`: it holds the ownership marker (docs/design.md
 * section 3.1). Checked for a mapping and for a string that holds a JSON object. (The size limit on
 * metadata as sent, marker included, is checked by the schema stage.)
 */
import { type FieldDescriptor, fieldsWhere, MARKER_KEY, userMetadataObject } from "../../index.js";
import { pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

const isMetadata = (f: FieldDescriptor) => f.isMetadata;

export const reservedMetadataKey: Rule = {
  name: "reserved-metadata-key",
  check({ entries, problems }) {
    for (const entry of entries) {
      for (const field of fieldsWhere(entry.kind, isMetadata)) {
        const value = entry.fields[field.name];
        const pointer = pointerChild("", field.name);
        if (typeof value === "string") {
          if (userMetadataObject(value)?.[MARKER_KEY] !== undefined) {
            reportAt(
              problems,
              entry,
              pointer,
              `holds a JSON object with the top-level key ${MARKER_KEY}, which is reserved for tgw's ownership marker`,
            );
          }
        } else if (value && typeof value === "object" && !Array.isArray(value) && MARKER_KEY in value) {
          reportAt(
            problems,
            entry,
            pointerChild(pointer, MARKER_KEY),
            `the top-level key ${MARKER_KEY} is reserved for tgw's ownership marker`,
            { atKey: true },
          );
        }
      }
    }
  },
};
