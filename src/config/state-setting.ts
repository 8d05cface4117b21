/**
 * The `state:` block of a configuration: where the stack's state lives when it is not the default file.
 *
 * ```yaml
 * state:
 *   url: postgres://tgw@db.example.com:5432/tgw?schema=tgw   # password: PGPASSWORD or ${env:...}
 * ```
 *
 * The URL may use `${env:NAME}` and `${file:PATH}` (for the password, or all of it); a password written
 * in the file itself is refused: configuration files live in Git. `--state` and `TGW_STATE_URL` win
 * over this block (docs/state.md).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages show the interpolation syntax itself
import type { ProblemList } from "../model/validation/problems.js";
import { describeNode, type Node, type Position } from "./source.js";

/** The block as written, before interpolation. */
export interface StateSetting {
  /** The raw `url` text. */
  url: string;
  pos: Position;
}

/** The description of the block in schemas/config.schema.json. */
export const STATE_SETTING_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["url"],
  description:
    "Where the state of this stack lives (docs/state.md). Default: the file .tgw/state.json beside the configuration. --state and TGW_STATE_URL take precedence.",
  properties: {
    url: {
      type: "string",
      description:
        "postgres://USER@HOST[:PORT]/DATABASE[?schema=tgw&history=20]. No password in the file: use PGPASSWORD (or ~/.pgpass), or ${env:NAME} in the URL.",
    },
  },
} as const;

/** Reads a `state:` node; problems go to `problems` and give undefined. */
export function readStateSetting(node: Node, problems: ProblemList): StateSetting | undefined {
  if (node.type !== "map") {
    problems.add(node.pos, "state", `must be a mapping with url: (got ${describeNode(node)})`);
    return undefined;
  }
  let setting: StateSetting | undefined;
  for (const { key, keyPos, value } of node.entries) {
    if (key !== "url") {
      problems.add(keyPos, `state.${key}`, "unknown key; expected url");
      continue;
    }
    if (value.type !== "scalar" || typeof value.value !== "string" || value.value.trim() === "") {
      problems.add(value.pos, "state.url", `must be a postgres:// URL (got ${describeNode(value)})`);
      continue;
    }
    if (!/^\s*(postgres(ql)?:\/\/|\$\{)/i.test(value.value)) {
      problems.add(value.pos, "state.url", "must be a postgres:// URL (or ${env:NAME} holding one)");
      continue;
    }
    if (hasLiteralPassword(value.value)) {
      problems.add(
        value.pos,
        "state.url",
        "must not hold a password: set PGPASSWORD (or use ~/.pgpass), or write it as ${env:NAME}",
      );
      continue;
    }
    setting = { url: value.value, pos: value.pos };
  }
  if (setting === undefined && !node.entries.some((e) => e.key === "url")) {
    problems.add(node.pos, "state.url", "missing: the postgres:// URL of the state");
  }
  return setting;
}

/** True if the password part of a URL is written out rather than taken from `${env:}` / `${file:}`. */
function hasLiteralPassword(raw: string): boolean {
  const withoutRefs = raw.replace(/\$\{(env|file):[^}]*\}/g, "");
  return /^\s*[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:[^@/\s]+@/i.test(withoutRefs);
}
