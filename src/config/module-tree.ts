/**
 * Where modules sit in configuration, derived from their API paths: the `edges:` tree mirrors
 * `/edges/https/{edge_id}/routes/{route_id}/saml`, so the module address is the path with dots
 * (`edges.https.<edge id>.routes.<route id>.saml`) and each `{param}` level is keyed by ids of the
 * kind whose collection path ends there (`{edge_id}` under `/edges/https`: HTTPS edge ids).
 * Nothing here names a module: adding a module kind to schemas/ adds it to the tree.
 */
import { allKinds, type KindDescriptor, moduleKinds } from "../model/index.js";

/** One level of the tree. */
export interface TreeNode {
  /** Fixed keys at this level (`edges`, `https`, `routes`, `saml`...). */
  literals: Map<string, TreeNode>;
  /** Keys at this level are ids of `kind`, filling the path parameter `name`. */
  param?: { name: string; kind: KindDescriptor; child: TreeNode };
  /** A leaf: the module configured here. */
  module?: KindDescriptor;
}

let root: TreeNode | undefined;

/**
 * The root of the module tree; its literal keys are top-level configuration keys (`edges`).
 * @throws Error if two module paths disagree on a parameter (a schema bug).
 */
export function moduleTree(): TreeNode {
  if (root) return root;
  const top: TreeNode = { literals: new Map() };
  const byPath = new Map([...allKinds().values()].map((k) => [k.path, k] as const));
  for (const kind of moduleKinds()) {
    const segments = kind.path.split("/").filter(Boolean);
    let node = top;
    segments.forEach((segment, i) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (param) {
        const collectionPath = `/${segments.slice(0, i).join("/")}`;
        const owner = byPath.get(collectionPath);
        if (!owner) throw new Error(`module ${kind.kind}: no kind has the path ${collectionPath}`);
        if (node.param && node.param.name !== param) {
          throw new Error(`module ${kind.kind}: {${param}} conflicts with {${node.param.name}}`);
        }
        node.param ??= { name: param, kind: owner, child: { literals: new Map() } };
        node = node.param.child;
        return;
      }
      let next = node.literals.get(segment);
      if (!next) {
        next = { literals: new Map() };
        node.literals.set(segment, next);
      }
      if (i === segments.length - 1) next.module = kind;
      node = next;
    });
  }
  root = top;
  return top;
}
