/**
 * Reading the reconciler options of a YAML resource: per-resource settings written next to the API
 * fields that are not sent to the API (DesiredResource.options). Which kinds take which option is
 * src/model/resource-options.ts (`RESOURCE_OPTIONS`, `optionsFor`); docs/design.md section 3.4.
 */
import { resolve } from "node:path";
import type { ResourceOptions } from "../model/desired.js";
import { optionsFor, RESOURCE_OPTIONS } from "../model/resource-options.js";
import { defaultTokenFile } from "../model/token-file.js";
import { childPath } from "../model/validation/paths.js";
import type { ProblemList } from "../model/validation/problems.js";
import { describeNode, type MapEntry } from "./source.js";

/** Where a resource is written and what it needs for defaults. */
export interface OptionsContext {
  kind: string;
  /** Resource name (last part of the address); token files default to `<name>.token`. */
  name: string;
  /** Path of the resource, for messages. */
  path: string;
  configDir: string;
  /** Absolute directory of the file that wrote the option. */
  dirOf: (file: string) => string;
  problems: ProblemList;
}

/**
 * Reads the option entries of one resource (the caller has split them from the API fields).
 * Wrong types are reported; defaults are filled in (`token_file` as an absolute path).
 */
export function readOptions(entries: MapEntry[], ctx: OptionsContext): ResourceOptions {
  const options: ResourceOptions = { prevent_destroy: false };
  for (const { key, keyPos, value } of entries) {
    const spec = RESOURCE_OPTIONS.find((o) => o.name === key);
    if (!spec) continue;
    const path = childPath(ctx.path, key);
    const v = value.type === "scalar" ? value.value : undefined;
    if (spec.type === "boolean") {
      if (typeof v !== "boolean") {
        ctx.problems.add(value.pos, path, `must be true or false (got ${describeNode(value)})`);
        continue;
      }
      Object.assign(options, { [spec.name]: v });
    } else {
      if (typeof v !== "string") {
        ctx.problems.add(value.pos, path, `must be a file path (got ${describeNode(value)})`);
        continue;
      }
      if (v.trim() === "") {
        ctx.problems.add(value.pos, path, "must be a file path, not empty");
        continue;
      }
      options.token_file = resolve(ctx.dirOf(keyPos.file), v);
    }
  }
  if (optionsFor(ctx.kind).some((o) => o.name === "token_file") && options.token_file === undefined) {
    options.token_file = defaultTokenFile(ctx.configDir, ctx.name);
  }
  return options;
}
