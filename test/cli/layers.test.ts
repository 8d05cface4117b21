/**
 * The CLI's modules import only downwards (docs/design.md > CLI modules): a command never imports
 * another command nor src/cli/commands/index.ts (the list of every command), and only the entry point
 * imports src/cli/commands. Shared option handling lives below, in src/cli/options.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const commandsDir = join(root, "src/cli/commands");

/** Every .ts file below `dir`, absolute. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** The files of the repository `file` imports (static, `export ... from`, dynamic), absolute. */
function localImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, ".ts"));
}

const inCommands = (file: string) => !relative(commandsDir, file).startsWith("..");
const rel = (file: string) => relative(root, file);

describe("src/cli layering", () => {
  it("no command imports another file of src/cli/commands (only index.ts lists the commands)", () => {
    const files = tsFiles(commandsDir);
    expect(files.length).toBeGreaterThan(5);
    const offending = files
      .filter((file) => rel(file) !== "src/cli/commands/index.ts")
      .flatMap((file) =>
        localImports(file)
          .filter(inCommands)
          .map((to) => `${rel(file)} -> ${rel(to)}`),
      );
    expect(offending).toEqual([]);
  });

  it("only src/cli/main.ts imports src/cli/commands", () => {
    const outside = tsFiles(join(root, "src")).filter((file) => !inCommands(file));
    const importers = outside.filter((file) => localImports(file).some(inCommands)).map(rel);
    expect(importers).toEqual(["src/cli/main.ts"]);
  });

  it("sees the imports it checks: index.ts imports every other command file", () => {
    const index = join(commandsDir, "index.ts");
    const others = tsFiles(commandsDir).filter((f) => f !== index);
    expect(localImports(index).filter(inCommands).sort()).toEqual(others.sort());
  });
});
