/**
 * API keys' tokens, as per-kind facts the sources and the engine share: which kinds return a token
 * once at create (`returnsToken`), and where it is written by default (docs/configuration.md >
 * token_file).
 */
import { join, sep } from "node:path";
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
