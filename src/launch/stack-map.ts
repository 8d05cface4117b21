/**
 * Stack traces of the CLI bundle in terms of the sources, for `--debug`. The launcher compiles the
 * bundle through node:vm (./launch.ts), whose scripts Node's `--enable-source-maps` does not cover, so
 * a trace would name `dist/tgw/tgw.cjs` and a column on a line of thousands of characters. Each script's
 * map (`<script>.map`, scripts/bundle.ts) is read with Node's own `SourceMap` at the first trace that
 * needs it; frames of other files are left as V8 writes them.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";

/**
 * From now on, V8 writes the frames of the scripts given to `add` (absolute paths) at their source
 * positions, `src/...ts:line:column` relative to `root` (the package's folder).
 *
 * @param firstLineShift characters the launcher put before a script's first line (its wrapper)
 */
export function mapStackTraces(root: string, firstLineShift: number): { add(script: string): void } {
  // null: a script whose map is not read yet; undefined: one without a map.
  const maps = new Map<string, SourceMap | null | undefined>();
  const mapOf = (file: string): SourceMap | undefined => {
    if (!maps.has(file)) return undefined;
    let map = maps.get(file);
    if (map === null) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
      } catch {
        map = undefined; // No map beside the script: V8's own frames.
      }
      maps.set(file, map);
    }
    return map;
  };
  Error.prepareStackTrace = (error, frames) => {
    const lines = frames.map((frame) => {
      const file = frame.getFileName() ?? undefined;
      const map = file === undefined ? undefined : mapOf(file);
      const line = frame.getLineNumber();
      const column = frame.getColumnNumber();
      if (map === undefined || file === undefined || line === null || column === null)
        return `    at ${frame}`;
      const entry = map.findEntry(line - 1, column - 1 - (line === 1 ? firstLineShift : 0));
      if (!("originalSource" in entry)) return `    at ${frame}`;
      const source = relative(root, resolve(dirname(file), entry.originalSource));
      const where = `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
      // As V8 names a frame: `Type.method` for a method call, `new`, `async`.
      const fn = frame.getFunctionName() ?? frame.getMethodName();
      const type = frame.isToplevel() || frame.isConstructor() ? null : frame.getTypeName();
      const name = fn && type && type !== "Object" ? `${type}.${fn}` : fn;
      const how = frame.isAsync() ? "async " : frame.isConstructor() ? "new " : "";
      return name ? `    at ${how}${name} (${where})` : `    at ${how}${where}`;
    });
    return [String(error), ...lines].join("\n");
  };
  return { add: (script) => maps.set(script, null) };
}
