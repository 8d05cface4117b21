/**
 * How the `tgw state` commands find their store without needing a valid configuration: `--state` or
 * `TGW_STATE_URL` when set, else the configuration's `state:` block, else the default file
 * (src/state/open.ts). A PostgreSQL state is keyed by stack: the stack is `--stack`, else the
 * configuration's. The configuration is read only when needed, and a configuration that does not
 * load only matters when the stack or the `state:` block must come from it; a `-f` path that does
 * not exist is refused, as every command refuses it.
 */
import { ConfigError, checkConfigPaths, loadConfig } from "../config/index.js";
import { UsageError } from "../errors.js";
import { locateState, type OpenedStore, openStateStore } from "../state/open.js";
import { colorErr, debugLog } from "./output.js";

/** Options of the `tgw state` commands that locate a state. */
export interface StateLocateOptions {
  state?: string;
  file?: string[];
  stack?: string;
}

/**
 * Opens the state of a `tgw state` command.
 * @param command recorded in the history of a PostgreSQL state (`tgw state rm`).
 * @throws ConfigError when a `-f` path does not exist (as `tgw plan` says it: a typo must not act on
 *   the working directory's state); UsageError when a PostgreSQL state is named and no stack can be found.
 */
export async function openCommandState(
  opts: StateLocateOptions,
  command: string,
  env: Record<string, string | undefined> = process.env,
): Promise<OpenedStore> {
  checkConfigPaths(opts.file ?? [], process.cwd());
  const warn = (m: string) => process.stderr.write(`${colorErr.yellow("Warning:")} ${m}\n`);
  const chosen = opts.state ?? (env.TGW_STATE_URL?.trim() || undefined);
  let location = locateState({ state: chosen, config: opts.file, env: {} });
  let stack = opts.stack;
  if (location.kind === "postgres" && stack !== undefined) {
    return openStateStore(location, { stack, warn, command });
  }
  if (chosen === undefined || location.kind === "postgres") {
    const loaded = await loadConfig(opts.file ?? [], { env }).catch((err: unknown) => {
      if (location.kind === "postgres") {
        const why = err instanceof ConfigError ? "the configuration does not load" : String(err);
        throw new UsageError(
          `a PostgreSQL state holds one row set per stack, and ${why}: name the stack with --stack`,
        );
      }
      return undefined;
    });
    if (loaded !== undefined) {
      stack ??= loaded.desired.stack;
      if (chosen === undefined && loaded.desired.stateUrl !== undefined) {
        // No --state and no TGW_STATE_URL here: the environment only allows the configuration's host.
        location = locateState({ configured: loaded.desired.stateUrl, config: opts.file, env });
      }
    }
  }
  if (location.kind === "file") return openStateStore(location, { warn, command, debug: debugLog });
  return openStateStore(location, { stack, warn, command });
}
