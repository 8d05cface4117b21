/**
 * Reconciler options: per-resource settings written next to the API fields that are not sent to the
 * API (DesiredResource.options). `prevent_destroy` applies to every resource and module;
 * `token_file` and `token_kept_elsewhere` to API keys, whose token the API returns once (docs/design.md
 * section 3.4).
 */
import { resolve } from "node:path";
import type { ResourceOptions } from "../model/desired.js";
import { defaultTokenFile } from "../model/token-file.js";
import type { ProblemList } from "./errors.js";
import { childPath } from "./paths.js";
import { describeNode, type MapEntry } from "./source.js";

/** One option: its name, value type, the kinds it applies to (all when absent) and its documentation. */
export interface OptionSpec {
  name: keyof ResourceOptions;
  type: "boolean" | "string";
  kinds?: readonly string[];
  description: string;
}

/** Every reconciler option (the config schema and docs/configuration.md list the same). */
export const RESOURCE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "prevent_destroy",
    type: "boolean",
    description:
      "tgw option, not sent to the API: a plan that would delete or replace this resource fails instead. Default false.",
  },
  {
    name: "token_file",
    type: "string",
    kinds: ["api_key"],
    description:
      "tgw option, not sent to the API: where to write the token returned when the key is created (mode 0600), relative to this file. Default: .tgw/secrets/<name>.token under the configuration directory.",
  },
  {
    name: "token_kept_elsewhere",
    type: "boolean",
    kinds: ["api_key"],
    description:
      "tgw option, not sent to the API: the key's token is kept outside tgw (an imported key, or a token handed over by hand), so tgw never reports it lost when its token file is missing. Default false.",
  },
];

const optionsByKind = new Map<string, readonly OptionSpec[]>();

/** The options a kind accepts (found once per kind: this runs for every resource). */
export function optionsFor(kind: string): readonly OptionSpec[] {
  let options = optionsByKind.get(kind);
  if (options === undefined) {
    options = RESOURCE_OPTIONS.filter((o) => !o.kinds || o.kinds.includes(kind));
    optionsByKind.set(kind, options);
  }
  return options;
}

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
