/**
 * Construct paths of a synthesized stack by address, for commands that show addresses without
 * loading the configuration themselves (`tgw state list`).
 */

import { findSynthesizedStack } from "../../model/synthesized-stack.js";
import { loadConfig } from "../load.js";

/**
 * The construct path of every resource of the synthesized stack that `paths` (`-f`) names.
 * @returns an empty map for YAML, or when the stack does not load (the command goes on without)
 */
export async function constructPaths(paths: readonly string[] | undefined): Promise<Map<string, string>> {
  if (!paths || !findSynthesizedStack(paths)) return new Map();
  try {
    const { desired } = await loadConfig(paths);
    return new Map(desired.resources.flatMap((r) => (r.label ? [[r.address, r.label] as const] : [])));
  } catch {
    return new Map();
  }
}
