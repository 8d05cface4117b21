/**
 * `ValidateResourceConfig`: the checks of `tgw validate` (the kind's request schema through the model's
 * Ajv, then the semantic rules) run on one resource's Terraform configuration, with the same messages.
 * Each problem's field path (`target.monitoring_target.api_key`, `sources[0].type`) becomes the
 * attribute path of its Terraform diagnostic. Values not known yet (references to other resources) are
 * left out and checked at apply by the API.
 */
import type { Entry, Located } from "../model/validation/entry.js";
import { pointerChild } from "../model/validation/entry.js";
import type { MapNode } from "../model/validation/nodes.js";
import { childPath, itemPath } from "../model/validation/paths.js";
import { ProblemList } from "../model/validation/problems.js";
import { RULES } from "../model/validation/rules/index.js";
import { checkSchema } from "../model/validation/schema-check.js";
import { type CtyType, hasUnknown, type TfObject, type TfValue } from "./cty.js";
import type { JsonAttribute } from "./schema.js";
import { fieldsOf, type ResourceType } from "./values.js";

/** One problem: the message `tgw validate` gives and the attribute path it concerns. */
export interface AttributeProblem {
  /** Steps: attribute names, list indexes, map keys. */
  path: (string | number)[];
  message: string;
}

const NOWHERE = { file: "", line: 0, col: 0 };

function indexValue(index: Map<string, Located>, pointer: string, path: string, value: unknown): void {
  index.set(pointer, { pos: NOWHERE, path });
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) indexValue(index, pointerChild(pointer, i), itemPath(path, i), v);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value))
      indexValue(index, pointerChild(pointer, k), childPath(path, k), v);
  }
}

/**
 * The problems of `config` for resource type `rt`, as `tgw validate` reports them.
 * @param marker the ownership marker the provider will write (its size counts against metadata limits).
 */
export function validateConfig(
  rt: ResourceType,
  config: TfObject,
  marker: { stack: string; address: string },
): AttributeProblem[] {
  const fields = fieldsOf(rt, config);
  const unknown = new Set(Object.keys(fields).filter((k) => hasUnknown(fields[k] as TfValue)));
  for (const k of unknown) delete fields[k];
  // Optional and computed attributes left out, and the required ones Terraform itself checks.
  for (const [name, attr] of Object.entries(rt.attributes))
    if (attr.required && config[name] === null) unknown.add(name);
  const index = new Map<string, Located>();
  indexValue(index, "", "", fields);
  const entry: Entry = {
    address: "",
    kind: rt.kind,
    keyPos: NOWHERE,
    body: { type: "map", entries: [], pos: NOWHERE } satisfies MapNode,
    fields,
    options: { prevent_destroy: false },
    refs: [],
    index,
    fromFile: new Map(),
    fromEnv: new Set(),
  };
  const problems = new ProblemList();
  checkSchema([entry], { stack: marker.stack, ownership: "marker", problems });
  const ctx = {
    entries: [entry],
    byAddress: new Map([["", entry]]),
    stack: marker.stack,
    ownership: "marker" as const,
    problems,
    display: (abs: string) => abs,
  };
  for (const rule of RULES) rule.check(ctx);
  return problems.items
    .map((p) => ({ path: parsePath(p.path), message: p.message }))
    .filter((p) => !unknown.has(String(p.path[0])));
}

/** `a.b[0]["x.y"]` -> `["a", "b", 0, "x.y"]` (the path syntax of src/model/validation/paths.ts). */
export function parsePath(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  const re = /([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else if (m[3] !== undefined) steps.push(JSON.parse(m[3]) as string);
  }
  return steps;
}

/** One step of a Terraform attribute path. */
export type PathStep =
  | { attribute_name: string }
  | { element_key_string: string }
  | { element_key_int: number };

/**
 * The Terraform attribute path of a problem path: nested attribute names as attribute steps, map keys
 * and list indexes as element keys. A set element has no key: the path stops at the set.
 */
export function attributePath(
  attributes: Record<string, JsonAttribute>,
  path: (string | number)[],
): PathStep[] {
  const steps: PathStep[] = [];
  let attrs: Record<string, JsonAttribute> | undefined = attributes;
  let type: CtyType | undefined;
  let i = 0;
  while (i < path.length) {
    const step = path[i] as string | number;
    if (attrs && typeof step === "string" && attrs[step]) {
      const attr: JsonAttribute = attrs[step];
      steps.push({ attribute_name: step });
      const mode = attr.nested_type?.nesting_mode;
      attrs = mode === "single" ? attr.nested_type?.attributes : undefined;
      type = attr.nested_type
        ? mode === "single"
          ? undefined
          : [mode === "set" ? "set" : mode === "map" ? "map" : "list", "dynamic"]
        : attr.type;
      if (attr.nested_type && mode !== "single") {
        const next = path[i + 1];
        if (mode === "set" || next === undefined) break;
        steps.push(typeof next === "number" ? { element_key_int: next } : { element_key_string: next });
        attrs = attr.nested_type.attributes;
        type = undefined;
        i += 2;
        continue;
      }
    } else if (Array.isArray(type) && (type[0] === "map" || type[0] === "list")) {
      steps.push(typeof step === "number" ? { element_key_int: step } : { element_key_string: step });
      type = type[1] as CtyType;
    } else break;
    i++;
  }
  return steps;
}
