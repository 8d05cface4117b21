/**
 * The config layer: YAML configuration files to a validated `DesiredState` (issue 4). The format is
 * documented in docs/configuration.md; its JSON Schema for editors is schemas/config.schema.json.
 *
 * @example
 * const desired = await loadDesiredState(["infra/"], { env: process.env });
 * // throws ConfigError: every problem as `file:line:col: path: message`
 */
import type { DesiredState } from "../model/desired.js";
import { type LoadOptions, loadConfig } from "./load.js";

export type {
  DesiredResource,
  DesiredState,
  RefValue,
  ResourceOptions,
  SourcePosition,
} from "../model/desired.js";
export { isRef } from "../model/desired.js";
export { type ConfigProblem, formatProblem } from "../model/validation/problems.js";
export { ConfigError } from "./errors.js";
export { checkConfigPaths } from "./files.js";
export { type LoadedConfig, type LoadOptions, loadConfig } from "./load.js";

/**
 * Loads, validates and merges the configuration at `paths` (`-f` files or directories of `*.yaml` /
 * `*.yml`; none: the working directory) into one desired state.
 * @throws ConfigError when anything is wrong, with every problem found; nothing is returned partially
 */
export async function loadDesiredState(paths: string[], opts: LoadOptions = {}): Promise<DesiredState> {
  return (await loadConfig(paths, opts)).desired;
}
