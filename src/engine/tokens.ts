/**
 * API key tokens (DECISIONS.md section 3.4): the API returns a key's token once, in the create
 * response. Apply writes it to a file of mode 0600 (default `.tgw/secrets/<name>.token` under the
 * config directory, or the resource's `token_file` option) and nowhere else: never to the state,
 * the plan or logs.
 */
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { DesiredResource } from "../config/desired.js";

/**
 * The token file of an API key resource as configured: `token_file` (the config layer always sets
 * it), else `.tgw/secrets/<name>.token` as the config layer's default (`api_keys.ci` -> `ci.token`).
 */
export function configuredTokenFile(resource: DesiredResource): string {
  const name = resource.address.slice(resource.address.indexOf(".") + 1);
  return resource.options.token_file ?? join(".tgw", "secrets", `${name}.token`);
}

/** Absolute path of a configured token file (relative paths are relative to the config directory). */
export function tokenFilePath(configured: string, configDir: string): string {
  return isAbsolute(configured) ? configured : resolve(configDir, configured);
}

/** A token file as plans show it: relative to the config directory when inside it. */
export function shownTokenFile(configured: string, configDir: string): string {
  if (!isAbsolute(configured)) return configured;
  const rel = relative(configDir, configured);
  return rel.startsWith("..") || isAbsolute(rel) ? configured : rel;
}

/**
 * Writes `token` (and a newline) to `path` with mode 0600, creating missing directories with mode
 * 0700. The file is replaced atomically, so a reader never sees half a token.
 * @throws Error from the file system (permission denied, read-only disk...).
 */
export async function writeTokenFile(path: string, token: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${token}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}
