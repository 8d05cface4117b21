/**
 * The shape of a `tgw` command module (src/cli/commands/*). Its own module so that commands depend on
 * it without importing src/cli/commands/index.ts, which imports every command.
 */
import type { Command } from "commander";

/** Registers one command (and its subcommands) on the program. */
export type RegisterCommand = (program: Command) => void;
