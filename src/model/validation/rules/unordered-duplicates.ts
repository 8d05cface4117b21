/**
 * A list the API keeps as a set (`x-tgw.unordered`: ACL rules, principals, destination ids, header
 * names to remove...) must not repeat an item, after the field's normalisation (header names compare
 * lower-cased): the live value would never equal the desired one.
 */
import { canonicalJson, type FieldDescriptor, fieldsWhere } from "../../index.js";
import { pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

const isUnordered = (f: FieldDescriptor) => f.unordered;

export const unorderedDuplicates: Rule = {
  name: "unordered-duplicates",
  check({ entries, problems }) {
    for (const entry of entries) {
      for (const field of fieldsWhere(entry.kind, isUnordered)) {
        const value = entry.fields[field.name];
        if (!Array.isArray(value)) continue;
        const pointer = pointerChild("", field.name);
        const first = new Map<string, number>();
        value.forEach((item, i) => {
          let text = typeof item === "string" ? item : canonicalJson(item);
          if (field.normalize === "lowercase") text = text.toLowerCase();
          if (field.normalize === "trim") text = text.trim();
          const earlier = first.get(text);
          if (earlier === undefined) first.set(text, i);
          else {
            reportAt(
              problems,
              entry,
              pointerChild(pointer, i),
              `repeats item ${earlier}: the API keeps this list as a set, so give each item once`,
            );
          }
        });
      }
    }
  },
};
