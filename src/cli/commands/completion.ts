/**
 * Shell completion for bash, zsh and fish, through `@pnpm/tabtab`:
 *
 * - `tgw completion SHELL` prints the script to load (`source <(tgw completion bash)` in `~/.bashrc`;
 *   `tgw completion fish > ~/.config/fish/completions/tgw.fish`);
 * - at each TAB the script runs `tgw completion-server -- WORDS` with the line in `COMP_LINE`,
 *   `COMP_POINT` and `COMP_CWORD`, which answers from the commands' own definitions (commander's
 *   tree): command and sub-command names, options, and files where a command takes a file.
 */
import { createRequire } from "node:module";
import type { Command, Option } from "commander";
import { UsageError } from "../../errors.js";
import type { RegisterCommand } from "../command.js";
import { helpExamples } from "../output.js";

type Tabtab = typeof import("@pnpm/tabtab");
const SHELLS = ["bash", "zsh", "fish"] as const;
/** What tabtab's scripts turn into the shell's own file completion. */
const FILES = "__tabtab_complete_files__";
/** Options whose value is a path. */
const PATH_OPTIONS = new Set(["--file", "--state", "--out"]);

function tabtab(): Tabtab {
  // tabtab is CommonJS: required where it is used, so other commands never load it.
  return createRequire(import.meta.url)("@pnpm/tabtab") as Tabtab;
}

/** Registers `tgw completion SHELL`. */
export const registerCompletion: RegisterCommand = (program) => {
  program
    .command("completion")
    .description("print the shell completion script for bash, zsh or fish")
    .argument("<shell>", SHELLS.join(", "))
    .addHelpText(
      "after",
      helpExamples(
        "source <(tgw completion bash)     # in ~/.bashrc",
        "source <(tgw completion zsh)      # in ~/.zshrc",
        "tgw completion fish > ~/.config/fish/completions/tgw.fish",
      ),
    )
    .action(async (shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new UsageError(`tgw completion ${shell}: the shells are ${SHELLS.join(", ")}`);
      const script = await tabtab().getCompletionScript({
        name: "tgw",
        completer: "tgw",
        shell: shell as (typeof SHELLS)[number],
      });
      process.stdout.write(script.endsWith("\n") ? script : `${script}\n`);
    });
};

/** Registers the hidden `tgw completion-server`, which the scripts call (all commands are registered). */
export const registerCompletionServer: RegisterCommand = (program) => {
  program
    .command("completion-server", { hidden: true })
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      const tt = tabtab();
      const env = tt.parseEnv(process.env);
      if (!env.complete) return;
      const shell = tt.getShellFromEnv(process.env);
      tt.log(candidates(program, env.partial.split(" ").slice(1)), shell, (line) => {
        process.stdout.write(`${line}\n`);
      });
    });
};

/**
 * What may come next on a line whose words after `tgw` are `words` (the last one being typed):
 * sub-command names and options of the command the words name, or `FILES` after an option taking a
 * path and for a command whose arguments are files.
 */
export function candidates(
  program: Command,
  words: readonly string[],
): (string | { name: string; description: string })[] {
  let command = program;
  const typed = words.slice(0, -1);
  for (const word of typed) {
    const sub = command.commands.find((c) => c.name() === word);
    if (sub) command = sub;
  }
  const prev = typed[typed.length - 1];
  const last = words[words.length - 1] ?? "";
  const option = command.options.find((o: Option) => o.long === prev || o.short === prev);
  if (option && (option.required || option.optional))
    return PATH_OPTIONS.has(option.long ?? "") ? [FILES] : [];
  if (last.startsWith("-")) {
    return command.options
      .filter((o: Option) => !o.hidden && o.long !== undefined)
      .map((o: Option) => ({ name: o.long as string, description: o.description }));
  }
  const subs = command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => c.name() !== "help");
  if (subs.length > 0) return subs.map((c) => ({ name: c.name(), description: c.description() }));
  return command.registeredArguments.length > 0 ? [FILES] : [];
}
