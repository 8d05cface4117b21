/**
 * API keys' tokens, as per-kind facts the sources and the engine share: which kinds return a token
 * once at create (`returnsToken`), and where it is written by default (docs/configuration.md >
 * token_file).
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DesiredResource } from "./desired.js";
import { getKind } from "./kinds.js";

let secrets: { configDir: string; dir: string } | undefined;

/** The directory of default token files: `.tgw/secrets` under `configDir`. */
export function secretsDir(configDir: string): string {
  return join(configDir, ".tgw", "secrets");
}

/**
 * An API key's default token file: `.tgw/secrets/<name>.token` under `configDir` (relative when
 * `configDir` is). `name` is a resource name (address.ts NAME_PATTERN, a Terraform resource name: no
 * separator or dot segment; a name that is not is reported elsewhere), so only the directory is joined.
 */
export function defaultTokenFile(configDir: string, name: string): string {
  if (secrets?.configDir !== configDir) secrets = { configDir, dir: secretsDir(configDir) };
  return `${secrets.dir}${sep}${name}.token`;
}

/** The kind's create response carries a secret `token` that no request field holds (API keys). */
export function returnsToken(kindName: string): boolean {
  // Asked once per resource by plan and token checks: answered once per kind.
  let answer = tokenKinds.get(kindName);
  if (answer === undefined) {
    const kind = getKind(kindName);
    answer =
      kind.secretPaths.some((p) => p.length === 1 && p[0] === "token") &&
      !kind.fields.some((f) => f.name === "token");
    tokenKinds.set(kindName, answer);
  }
  return answer;
}
const tokenKinds = new Map<string, boolean>();

/**
 * The token file of an API key resource as configured: `token_file` (the config layer always sets
 * it), else `.tgw/secrets/<name>.token` as the config layer's default (`api_keys.ci` -> `ci.token`).
 */
export function configuredTokenFile(resource: DesiredResource): string {
  const name = resource.address.slice(resource.address.indexOf(".") + 1);
  return resource.options.token_file ?? defaultTokenFile(".", name);
}

/** Absolute path of a configured token file (relative paths are relative to the config directory). */
export function tokenFilePath(configured: string, configDir: string): string {
  return isAbsolute(configured) ? configured : resolve(configDir, configured);
}

/**
 * A token file as plans show it (`base`: the config directory) and apply's progress lines (the working
 * directory): relative to `base` when inside it, else as given.
 */
export function shownTokenFile(configured: string, base: string): string {
  if (!isAbsolute(configured)) return configured;
  // One path.relative per directory, not per key: keys share their secrets directory.
  const dir = dirname(configured);
  const key = `${base}\0${dir}`;
  let shownDir = shownDirs.get(key);
  if (shownDir === undefined) {
    const rel = relative(base, dir);
    shownDir = rel.startsWith("..") || isAbsolute(rel) ? dir : rel;
    shownDirs.set(key, shownDir);
  }
  // shownDir is normalized (path.relative) and a base name has no separator: no path.join needed.
  return shownDir === dir
    ? configured
    : shownDir === ""
      ? basename(configured)
      : `${shownDir}${sep}${basename(configured)}`;
}

/** `shownTokenFile`'s directories, by base directory and token directory. */
const shownDirs = new Map<string, string>();
