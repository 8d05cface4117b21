/**
 * Stage 2 of loading: the shape of one configuration document. Finds the settings (`stack`,
 * `ownership`), every resource (`<collection>: {<name>: {fields}}`) and every module (the `edges:`
 * tree, see ./module-tree.ts), and reports keys that belong nowhere. Field values are not looked at
 * here.
 *
 * Top-level keys: `stack`, `ownership`, one per collection (from `collections()` in src/model), the
 * roots of the module tree (`edges`), and any key starting with `x-` (ignored: a place for YAML
 * anchors, as in Compose files).
 */

import { NAME_PATTERN } from "../model/address.js";
import { OWNERSHIP_MODES, type OwnershipMode } from "../model/desired.js";
import { collections, type KindDescriptor } from "../model/index.js";
import { explainId } from "../model/validation/ids.js";
import { childPath } from "../model/validation/paths.js";
import type { ProblemList } from "../model/validation/problems.js";
import { didYouMean, listWords } from "../model/words.js";
import { type ImportEntry, readImports } from "./imports.js";
import { moduleTree, type TreeNode } from "./module-tree.js";
import { type MovedEntry, readMoved } from "./moved.js";
import { type RemovedEntry, readRemoved } from "./removed.js";
import { describeNode, type MapNode, type Node, type Position } from "./source.js";
import { readStateSetting, type StateSetting } from "./state-setting.js";

export { NAME_PATTERN };

/** Stack names: letters, digits, `_`, `.` and `-`, starting with a letter or digit. */
export const STACK_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";

const nameRe = new RegExp(NAME_PATTERN);
const stackRe = new RegExp(STACK_PATTERN);

/** A top-level setting and where it was written. */
export interface Setting<T> {
  value: T;
  pos: Position;
}

/** A resource or module as found in a document, before its fields are read. */
export interface RawEntry {
  address: string;
  kind: KindDescriptor;
  /** Resource name, or the module's key. */
  name: string;
  keyPos: Position;
  body: MapNode;
  pathParams?: Record<string, string>;
}

/** What one document declares. */
export interface DocumentLayout {
  stack?: Setting<string>;
  ownership?: Setting<OwnershipMode>;
  /** The `state:` block (./state-setting.ts). */
  state?: StateSetting;
  entries: RawEntry[];
  /** `moved:` entries (./moved.ts). */
  moved: MovedEntry[];
  /** `removed:` entries (./removed.ts). */
  removed: RemovedEntry[];
  /** `import:` entries (./imports.ts). */
  imports: ImportEntry[];
}

/** Reads the layout of one document root; problems go to `problems`. */
export function readLayout(root: Node, problems: ProblemList): DocumentLayout {
  const layout: DocumentLayout = { entries: [], moved: [], removed: [], imports: [] };
  if (root.type === "scalar" && root.value === null) return layout;
  if (root.type !== "map") {
    problems.add(root.pos, "", `a configuration file must be a mapping (got ${describeNode(root)})`);
    return layout;
  }
  const cols = collections();
  const tree = moduleTree();
  const known = [
    "stack",
    "ownership",
    "moved",
    "removed",
    "import",
    "state",
    ...cols.keys(),
    ...tree.literals.keys(),
  ];
  for (const { key, keyPos, value } of root.entries) {
    if (key === "stack") {
      if (value.type !== "scalar" || typeof value.value !== "string") {
        problems.add(value.pos, key, `must be a string (got ${describeNode(value)})`);
      } else if (!stackRe.test(value.value)) {
        problems.add(
          value.pos,
          key,
          "must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit",
        );
      } else layout.stack = { value: value.value, pos: value.pos };
      continue;
    }
    if (key === "ownership") {
      const v = value.type === "scalar" ? value.value : undefined;
      if (!OWNERSHIP_MODES.includes(v as OwnershipMode)) {
        problems.add(value.pos, key, `must be ${listWords([...OWNERSHIP_MODES])}`);
      } else layout.ownership = { value: v as OwnershipMode, pos: value.pos };
      continue;
    }
    if (key === "moved") {
      layout.moved.push(...readMoved(value, problems));
      continue;
    }
    if (key === "removed") {
      layout.removed.push(...readRemoved(value, problems));
      continue;
    }
    if (key === "import") {
      layout.imports.push(...readImports(value, problems));
      continue;
    }
    if (key === "state") {
      const state = readStateSetting(value, problems);
      if (state) layout.state = state;
      continue;
    }
    const kind = cols.get(key);
    if (kind) {
      readCollection(key, kind, value, layout, problems);
      continue;
    }
    const branch = tree.literals.get(key);
    if (branch) {
      readTree(value, branch, [key], {}, layout, problems);
      continue;
    }
    if (key.startsWith("x-")) continue;
    problems.add(
      keyPos,
      childPath("", key),
      `unknown top-level key${didYouMean(key, known)}; expected ${listWords([...known, "x-... (free, e.g. for anchors)"])}`,
    );
  }
  return layout;
}

/** A mapping, or null (an empty section); anything else is reported and gives undefined. */
function asMap(node: Node, path: string, what: string, problems: ProblemList): MapNode | undefined {
  if (node.type === "map") return node;
  if (node.type === "scalar" && node.value === null) return { type: "map", entries: [], pos: node.pos };
  problems.add(node.pos, path, `must be ${what} (got ${describeNode(node)})`);
  return undefined;
}

function readCollection(
  collection: string,
  kind: KindDescriptor,
  node: Node,
  layout: DocumentLayout,
  problems: ProblemList,
): void {
  const map = asMap(node, collection, `a mapping from names to ${kind.title} fields`, problems);
  if (!map) return;
  for (const { key, keyPos, value } of map.entries) {
    const address = `${collection}.${key}`;
    if (!nameRe.test(key)) {
      problems.add(
        keyPos,
        childPath(collection, key),
        "is not a valid name: use 1 to 63 lower-case letters, digits, _ or -, starting with a letter or digit",
      );
      continue;
    }
    const body = asMap(value, address, "a mapping of fields", problems);
    if (body) layout.entries.push({ address, kind, name: key, keyPos, body });
  }
}

function readTree(
  node: Node,
  tree: TreeNode,
  segments: string[],
  params: Record<string, string>,
  layout: DocumentLayout,
  problems: ProblemList,
): void {
  const path = segments.join(".");
  const expected = [...tree.literals.keys()];
  const what = tree.param
    ? `a mapping from ${tree.param.kind.title} ids to their modules`
    : `a mapping with ${listWords(expected)}`;
  const map = asMap(node, path, what, problems);
  if (!map) return;
  for (const { key, keyPos, value } of map.entries) {
    const childSegments = [...segments, key];
    const child = tree.literals.get(key);
    if (child?.module) {
      const body = asMap(value, childSegments.join("."), "a mapping of module fields", problems);
      if (body) {
        layout.entries.push({
          address: childSegments.join("."),
          kind: child.module,
          name: key,
          keyPos,
          body,
          pathParams: { ...params },
        });
      }
      continue;
    }
    if (child) {
      readTree(value, child, childSegments, params, layout, problems);
      continue;
    }
    if (tree.param) {
      const why = explainId(key, [tree.param.kind], `each key of ${path} must be`);
      if (why) {
        problems.add(keyPos, childPath(path, key), why);
        continue;
      }
      readTree(
        value,
        tree.param.child,
        childSegments,
        { ...params, [tree.param.name]: key },
        layout,
        problems,
      );
      continue;
    }
    problems.add(
      keyPos,
      childPath(path, key),
      `unknown key${didYouMean(key, expected)}; expected ${listWords(expected)}`,
    );
  }
}
