/**
 * Reconciler options: per-resource settings written next to the API fields that are not sent to the
 * API (DesiredResource.options). `prevent_destroy` applies to every resource and module;
 * `token_file` and `token_kept_elsewhere` to API keys, whose token the API returns once (docs/design.md
 * section 3.4). Which kinds take which option is a model fact: the schema check
 * (./validation/schema-check.ts) tells an option from an unknown field with it, the YAML source reads
 * them (src/config/options.ts), and `npm run gen` writes them into schemas/config.schema.json and
 * docs/configuration.md.
 */
import type { ResourceOptions } from "./desired.js";

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
