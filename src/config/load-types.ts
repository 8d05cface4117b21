/**
 * The options and result of loading a configuration: shared by the YAML loader (./load.ts) and the
 * CDKTF one (./cdktf/load.ts), which ./load.ts hands a synthesized stack to.
 */
import type { DesiredState } from "../model/desired.js";
import type { ParseCache } from "./cache.js";

/** Options of `loadConfig` / `loadDesiredState`. */
export interface LoadOptions {
  /** Environment for `${env:NAME}`; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Directory that relative `-f` paths and displayed paths are relative to; default `process.cwd()`. */
  cwd?: string;
  /** Parsed files kept between loads (`tgw watch`): an unchanged file is not parsed again (./cache.ts). */
  parseCache?: ParseCache;
}

/** A loaded configuration: the desired state and the configuration files it came from. */
export interface LoadedConfig {
  desired: DesiredState;
  /** Absolute paths of the YAML files read, in load order (`DesiredState.files` adds `${file:}` files). */
  configFiles: string[];
}
