/**
 * Which environment variables a configuration may read with `${env:NAME}` (docs/configuration.md >
 * `${env:NAME}`). Whoever can change a configuration (a pull request whose plan is posted, a commit a
 * `--git` watcher applies) must not reach the runner's own secrets, so, as Terraform reads only
 * `TF_VAR_*`:
 *
 * - a name that starts with `TGW_VAR_` may be read;
 * - so may a name the operator lists in `TGW_ALLOW_ENV` (names separated by `,` or spaces; an entry
 *   ending in `*` allows every name with that prefix), an environment variable, never a setting of
 *   the configuration itself;
 * - never a setting of tgw (`TGW_API_KEY`, `TGW_STATE_URL`, `TGW_DATA_KEY`... every `TGW_` name but
 *   `TGW_VAR_*`) nor of the PostgreSQL client (`PGPASSWORD`, every `PG` name), even when listed.
 */

/** The prefix of the variables every configuration may read. */
export const CONFIG_ENV_PREFIX = "TGW_VAR_";

/** The environment variable in which the operator lists more variables configurations may read. */
export const ALLOW_ENV = "TGW_ALLOW_ENV";

/**
 * Why a configuration may not read the variable `name`, or undefined when it may.
 * @param env the environment the operator started tgw with (`TGW_ALLOW_ENV` is read from it)
 */
export function envRefusal(name: string, env: Record<string, string | undefined>): string | undefined {
  if (name.startsWith(CONFIG_ENV_PREFIX)) return undefined;
  if (name.startsWith("TGW_")) {
    return `${name} is a setting of tgw itself, which a configuration never reads (its own variables start with ${CONFIG_ENV_PREFIX})`;
  }
  if (/^PG[A-Z]/.test(name)) {
    return `${name} is a setting of the PostgreSQL client, which a configuration never reads`;
  }
  if (allowedByOperator(name, env[ALLOW_ENV])) return undefined;
  return `environment variable ${name} may not be read by a configuration: name it ${CONFIG_ENV_PREFIX}${name}, or let the operator allow it with ${ALLOW_ENV}=${name}`;
}

/** Whether the list in `TGW_ALLOW_ENV` (`list`) names `name`, or a prefix of it (`AWS_*`). */
function allowedByOperator(name: string, list: string | undefined): boolean {
  for (const entry of (list ?? "").split(/[\s,]+/)) {
    if (entry === "") continue;
    if (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : name === entry) return true;
  }
  return false;
}
