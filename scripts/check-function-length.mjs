/**
 * Fails (exit 1) naming every function of `src/` longer than MAX_LINES lines, generated code aside
 * (`*.gen.*`, src/cdktf/gen/): issue 28 §4, functions a reader can hold. Counts function
 * declarations, methods, constructors, arrow functions and function expressions, from the line of
 * their first token to the line of their last. Run by `npm run lint`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

const MAX_LINES = 80;

/**
 * Functions still over the limit, as `path name`, each to be split (issue 28 §4); a listed function
 * that has become short enough must leave this list.
 */
const KNOWN = new Set([]);

const files = execFileSync("git", ["ls-files", "src/*.ts"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.includes(".gen.") && !f.startsWith("src/cdktf/gen/"));

const long = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      const first = lineOf(node.getStart());
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > MAX_LINES) long.push({ lines, file, line: first, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The function's name, or that of the variable or property it is assigned to. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

const unknown = long.filter((f) => !KNOWN.has(`${f.file} ${f.name}`));
const seen = new Set(long.map((f) => `${f.file} ${f.name}`));
const fixed = [...KNOWN].filter((k) => !seen.has(k));
for (const f of unknown) {
  console.error(
    `${f.file}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_LINES}; split it into named steps)`,
  );
}
for (const k of fixed)
  console.error(
    `${k}: now at most ${MAX_LINES} lines; remove it from KNOWN in scripts/check-function-length.mjs`,
  );
if (unknown.length > 0 || fixed.length > 0) process.exit(1);
