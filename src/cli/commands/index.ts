/** Every `tgw` command, in the order `tgw --help` lists them. Each module registers one command. */
import type { Command } from "commander";
import { registerServe } from "./serve.js";
import { registerState } from "./state.js";
import { registerValidate } from "./validate.js";

/** Registers one command (and its subcommands) on the program. */
export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [registerValidate, registerState, registerServe];
