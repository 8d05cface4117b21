/**
 * A cache of each configuration file's parsed layout, for loads that repeat (`tgw watch` reloads the
 * whole configuration on every edit; docs/watch.md > "What a reconcile re-reads"). A file whose text
 * is byte for byte the one parsed before is not parsed again: its entry is keyed by the file's display
 * path (positions carry it) and the SHA-256 of its text, so an edit, a rename or a `git checkout` that
 * changes a byte is always parsed anew. Only files parsed without problems are kept (a file with a
 * problem is parsed again, so its problems are reported every time).
 *
 * What is kept (stages 1 and 2 of src/config/load.ts: YAML nodes, then each document's layout) is
 * read-only for every later stage; interpolation (`${env:}`, `${file:}`), schema checks and rules run
 * on every load, so a changed `${file:}` target or a cross-file rule is never served from the cache.
 */
import { createHash } from "node:crypto";
import type { ProblemList } from "../model/validation/problems.js";
import { type DocumentLayout, readLayout } from "./layout.js";
import { parseYaml } from "./source.js";

/** Parsed layouts by file: create one per watcher and call `endLoad()` after each load. */
export class ParseCache {
  readonly #entries = new Map<string, { digest: string; layouts: DocumentLayout[] }>();
  /** Files looked up since the last `endLoad()`. */
  readonly #used = new Set<string>();
  #parsed = 0;
  #reused = 0;

  /** The layouts of `file` if `text` is what was parsed before, else undefined. */
  get(file: string, text: string): DocumentLayout[] | undefined {
    this.#used.add(file);
    const entry = this.#entries.get(file);
    const hit = entry && entry.digest === digest(text) ? entry.layouts : undefined;
    if (hit) this.#reused++;
    else this.#parsed++;
    return hit;
  }

  /** Remembers the layouts of `file` parsed from `text`. */
  set(file: string, text: string, layouts: DocumentLayout[]): void {
    this.#used.add(file);
    this.#entries.set(file, { digest: digest(text), layouts });
  }

  /**
   * Ends a load: drops the entries of files it did not read (deleted or renamed files) and returns
   * how many files it parsed and how many it took from the cache.
   */
  endLoad(): { parsed: number; reused: number } {
    for (const file of this.#entries.keys()) if (!this.#used.has(file)) this.#entries.delete(file);
    const counts = { parsed: this.#parsed, reused: this.#reused };
    this.#used.clear();
    this.#parsed = 0;
    this.#reused = 0;
    return counts;
  }

  /** Number of files kept. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The layouts of each YAML document of `file` (stages 1 and 2 of loading), from `cache` when its text
 * was parsed before. Problems go to `problems`; a file that has any is not cached.
 */
export function parseLayouts(
  file: string,
  text: string,
  problems: ProblemList,
  cache?: ParseCache,
): DocumentLayout[] {
  const hit = cache?.get(file, text);
  if (hit) return hit;
  const before = problems.size;
  const layouts = parseYaml(file, text, problems).map((root) => readLayout(root, problems));
  if (cache && problems.size === before) cache.set(file, text, layouts);
  return layouts;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}
