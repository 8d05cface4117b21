/**
 * The options several `tgw` commands share, and how they turn into engine options: `-f` and
 * `--state`, the safety flags, `--allow-api-change`, `--target` / `--exclude`, `--replace`, counts,
 * and the state commands' `--state` / `--stack` / `-f`. Imports no command (docs/design.md > CLI modules).
 */
import type { Command } from "commander";
import type { SafetyOptions } from "../engine/index.js";
import { openPageCursors, type PageCursors } from "../engine/pages.js";
import { UsageError } from "../errors.js";
import type { StateApi } from "../state/store.js";

/** Options every engine command takes. */
export interface CommonOptions {
  file?: string[];
  state?: string;
}

/** `--allow-api-change` as commander parses it. */
export interface ApiCheckFlags {
  allowApiChange?: boolean;
}

/** Adds `--allow-api-change` (docs/state.md > Which API a state belongs to). */
export function withApiCheck(cmd: Command): Command {
  return cmd.option(
    "--allow-api-change",
    "use a state that records another API than this run's (an apply then records this one)",
  );
}

/** Safety options as commander parses them. */
export interface SafetyFlags {
  maxDeletes?: number;
  force?: boolean;
  allowEmpty?: boolean;
  allowTerraformObjects?: boolean;
}

/** Adds `-f` and `--state`. */
export function withConfig(cmd: Command): Command {
  return cmd
    .option(
      "-f, --file <path>",
      "configuration file, or directory of *.yaml / *.yml files (repeatable; default: the current directory)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      "--state <path|url>",
      "state file or postgres:// URL (default: TGW_STATE_URL, the configuration's state: block, or .tgw/state.json beside the first -f)",
    );
}

/** `--target` and `--exclude` as commander parses them. */
export interface TargetFlags {
  target?: string[];
  exclude?: string[];
}

/** Adds `--target ADDRESS` and `--exclude ADDRESS` (repeatable; docs/plan.md > Targeting). */
export function withTargets(cmd: Command): Command {
  const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
  return cmd
    .option(
      "--target <address>",
      "plan only this address (or collection, e.g. api_keys) and what it depends on (repeatable)",
      collect,
    )
    .option(
      "--exclude <address>",
      "leave this address and what depends on it out of the plan (repeatable)",
      collect,
    );
}

/** The engine options of `--target` / `--exclude`. */
export function targetOptions(flags: TargetFlags): { target?: string[]; exclude?: string[] } {
  return {
    ...(flags.target ? { target: flags.target } : {}),
    ...(flags.exclude ? { exclude: flags.exclude } : {}),
  };
}

/** `--replace` as commander parses it. */
export interface ReplaceFlags {
  replace?: string[];
}

/** Adds `--replace ADDRESS` (repeatable). */
export function withReplace(cmd: Command): Command {
  return cmd.option(
    "--replace <address>",
    "replace this object even if it did not change, e.g. api_keys.ci to rotate its token (repeatable)",
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

/** Adds `--max-deletes`, `--force`, `--allow-empty`, `--allow-terraform-objects`. */
export function withSafety(cmd: Command): Command {
  return cmd
    .option("--max-deletes <n>", "refuse a plan that deletes (or replaces) more than N objects", parseCount)
    .option("--force", "allow more deletions than --max-deletes")
    .option("--allow-empty", "allow an empty configuration to delete everything the stack owns")
    .option(
      "--allow-terraform-objects",
      "create although objects of those kinds carry Terraform markers of this stack's name (another Terraform configuration of the same name)",
    );
}

/** Parses a non-negative whole number option. */
export function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) {
    throw new UsageError(`expected a whole number, got "${text}"`);
  }
  return n;
}

/** Parses a whole number option of at least 1 (`--parallelism`). */
export function parsePositiveCount(text: string): number {
  const n = parseCount(text);
  if (n < 1) throw new UsageError(`expected a whole number of at least 1, got "${text}"`);
  return n;
}

/** The safety options of the engine from the flags. */
export function safetyOptions(flags: SafetyFlags): SafetyOptions {
  return {
    ...(flags.maxDeletes === undefined ? {} : { maxDeletes: flags.maxDeletes }),
    ...(flags.force ? { force: true } : {}),
    ...(flags.allowEmpty ? { allowEmpty: true } : {}),
    ...(flags.allowTerraformObjects ? { allowTerraformObjects: true } : {}),
  };
}

/** The options of the commands that plan: `plan`, `apply` and `destroy`. */
export type PlanningFlags = CommonOptions & SafetyFlags & ApiCheckFlags & ReplaceFlags & TargetFlags;

/** Adds `--state`, `--stack` and `-f` (the `tgw state` commands). */
export function withLocation(cmd: Command): Command {
  return cmd
    .option(
      "--state <path|url>",
      "state file or postgres:// URL (default: TGW_STATE_URL, the configuration's state: block, or .tgw/state.json beside the first -f)",
    )
    .option("--stack <name>", "the stack whose PostgreSQL state to use (default: the configuration's)")
    .option(
      "-f, --file <path>",
      "configuration file or directory whose state to use (repeatable; the first one locates the state)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** Environment variable naming the token command (docs/ci.md > Tokens). */
export const TOKEN_COMMAND_ENV = "TGW_TOKEN_COMMAND";

/** The `tokenCommand` reconcile option from `TGW_TOKEN_COMMAND`, when set. */
export function tokenCommandOption(env: NodeJS.ProcessEnv = process.env): { tokenCommand?: string } {
  const command = env[TOKEN_COMMAND_ENV]?.trim();
  return command ? { tokenCommand: command } : {};
}

/**
 * The `pageCursors` reconcile option for the API `identity`: its lists' page cursors remembered in the
 * cache directory (src/engine/pages.ts). None for the embedded API, whose objects live one run.
 */
export function pageCursorsOption(identity: StateApi): { pageCursors?: PageCursors } {
  return identity.url === "embedded" ? {} : { pageCursors: openPageCursors(identity) };
}
