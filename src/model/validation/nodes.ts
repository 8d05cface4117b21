/**
 * The tree a YAML text becomes, with the position of every value: what both parse paths
 * (src/config/yaml-direct.ts, and the `yaml` package through src/config/source.ts) produce and every
 * later step reads. Here, below the sources, because an entry (./entry.ts) holds its mapping and every
 * problem its position, for the Terraform provider's checks too.
 */

/** Where something was written: display path of the file, 1-based line and column. */
export interface Position {
  file: string;
  line: number;
  col: number;
}

export interface ScalarNode {
  type: "scalar";
  value: string | number | boolean | null;
  pos: Position;
}
export interface MapEntry {
  key: string;
  keyPos: Position;
  value: Node;
}
export interface MapNode {
  type: "map";
  entries: MapEntry[];
  pos: Position;
}
export interface SeqNode {
  type: "seq";
  items: Node[];
  pos: Position;
}

/** A YAML value with its position. */
export type Node = ScalarNode | MapNode | SeqNode;
