/**
 * Test helpers for the config layer: write configuration files into a fresh temporary directory and
 * load them with that directory as the working directory, so problem positions read `a.yaml:3:5`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, type DesiredState, formatProblem, loadDesiredState } from "../../src/config/index.js";

/** Absolute path of examples/keys/. */
export const KEYS = fileURLToPath(new URL("../../examples/keys/", import.meta.url));

/** Creates a temporary directory holding `files` (path relative to it -> contents). */
export function writeTree(files: Record<string, string>, name = "stack"): string {
  const root = join(mkdtempSync(join(tmpdir(), "tgw-config-")), name);
  for (const [path, text] of Object.entries(files)) {
    const abs = join(root, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

/** The environment tests load with: `${file:}` may also read the example keys (outside the temporary trees). */
const testEnv = (env: Record<string, string> = {}) => ({ TGW_FILE_ROOTS: KEYS, ...env });

/** Lines joined with newlines (and a final one), so tests can count lines. */
export const yaml = (...lines: string[]) => `${lines.join("\n")}\n`;

/** Loads `paths` (default: the whole directory) from a tree; returns the desired state. */
export async function load(
  files: Record<string, string>,
  opts: { paths?: string[]; env?: Record<string, string> } = {},
): Promise<DesiredState> {
  const cwd = writeTree(files);
  return loadDesiredState(opts.paths ?? [], { cwd, env: testEnv(opts.env) });
}

/** Loads a tree that must be invalid; returns every problem as `file:line:col: path: message`. */
export async function problems(
  files: Record<string, string>,
  opts: { paths?: string[]; env?: Record<string, string> } = {},
): Promise<string[]> {
  try {
    await load(files, opts);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error("expected a ConfigError, but the configuration loaded");
}
