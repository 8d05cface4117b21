/**
 * Problems in a configuration, as every check reports them: each positioned at a file, line and
 * column with the field path it concerns (`ConfigProblem`), collected in a `ProblemList` through every
 * stage. The YAML and CDKTF sources (src/config, which throws them as one `ConfigError`) and the
 * Terraform provider's `ValidateResourceConfig` (src/terraform/validate.ts) share it, with the schema
 * check and the rules of this folder.
 */
import type { Position } from "./nodes.js";

/**
 * One mistake in the configuration.
 * `line` and `col` are 1-based; both are 0 when the problem concerns a whole file or directory
 * (a path that does not exist, a directory without configuration files).
 * `path` is the field path, e.g. `api_keys.ci.description` or
 * `edges.https.edghts_1.routes.edghtsrt_1.saml.idp_metadata`; "" for a problem of the file itself
 * (YAML syntax).
 */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

/** `file:line:col: path: message` (position and path left out when absent). */
export function formatProblem(p: ConfigProblem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** Orders problems by file, line, column, then path and message (stable output for people and tests). */
export function compareProblems(a: ConfigProblem, b: ConfigProblem): number {
  return (
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.line - b.line ||
    a.col - b.col ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
    (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
  );
}

/**
 * Collects problems during loading. Remembers which field paths already have a problem, so a later
 * stage (a semantic rule) can stay silent about a value an earlier stage (the schema) rejected.
 */
export class ProblemList {
  readonly items: ConfigProblem[] = [];
  readonly #paths = new Set<string>();
  readonly #seen = new Set<string>();

  /** Adds a problem at `pos` about `path`. Exact duplicates are dropped. */
  add(pos: Position, path: string, message: string): void {
    const p: ConfigProblem = { file: pos.file, line: pos.line, col: pos.col, path, message };
    const text = formatProblem(p);
    if (this.#seen.has(text)) return;
    this.#seen.add(text);
    this.items.push(p);
    this.#paths.add(path);
  }

  /** True if a problem was reported about `path` or a field inside it. */
  has(path: string): boolean {
    for (const p of this.#paths) {
      if (p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`)) return true;
    }
    return false;
  }

  /** True if a problem was reported about exactly `path`. */
  hasExactly(path: string): boolean {
    return this.#paths.has(path);
  }

  get size(): number {
    return this.items.length;
  }
}
