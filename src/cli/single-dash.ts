/**
 * Terraform's single-dash long options (issue 46): Go's flag package takes `-name` as `--name`, so
 * Terraform users type `tgw apply -auto-approve`, `tgw plan -out=tgw.plan -target=api_keys.ci`.
 * `doubleDashLongOptions` rewrites the words after `tgw` before commander parses them, knowing every
 * command's options from commander itself (the program's, and those of each command and sub-command
 * the words name, as commander takes a parent's options after a sub-command too):
 *
 * - `-name`, `-name=value` and `-name value`, where `--name` is an option there, become `--name...`
 *   (so `-force` is `--force`, not `-f orce`);
 * - otherwise a word whose first letter is a short option keeps its meaning (`-f x`, `-fx`);
 * - any other single-dash word of two letters or more (`-lock=false`) is written with two dashes too,
 *   so that commander's error names it as help does: `unknown option '--lock=false'` (a command that
 *   takes unknown options, the hidden `completion-server`, gets it as typed);
 * - the value of an option that takes one is left alone, even when it starts with a dash
 *   (`--target -x`, `-f -dir`), and so is everything after `--`.
 */
import type { Command, Option } from "commander";

/** The words after `tgw` as commander is to parse them, and the command they run. */
export interface CommandLine {
  /** The words, each single-dash long option written with two dashes. */
  args: string[];
  /** The command the words name, e.g. `tgw state rm` (`tgw` when they name none). */
  command: string;
}

/**
 * `args` (the words after `tgw`) with each single-dash long option written with two dashes (see the
 * module doc). The words of `program`'s sub-commands are followed to know which options apply:
 * register the commands first.
 */
export function doubleDashLongOptions(program: Command, args: readonly string[]): CommandLine {
  const out: string[] = [];
  const chain: Command[] = [program];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      const sub = subcommand(chain[chain.length - 1] as Command, word);
      if (sub) chain.push(sub);
      out.push(word);
      continue;
    }
    const { text, takesNext } = rewrite(word, chain);
    out.push(text);
    if (takesNext && i + 1 < args.length) out.push(args[++i] as string);
  }
  return { args: out, command: chain.map((c) => c.name()).join(" ") };
}

/** The word as commander should see it, and whether the next word is its option's value. */
function rewrite(word: string, chain: readonly Command[]): { text: string; takesNext: boolean } {
  const eq = word.indexOf("=");
  const flag = eq > 0 ? word.slice(0, eq) : word;
  if (word.startsWith("--")) {
    const option = findOption(chain, flag);
    return { text: word, takesNext: eq < 0 && option?.required === true };
  }
  const long = flag.length > 2 ? findOption(chain, `-${flag}`) : undefined;
  if (long) return { text: `-${word}`, takesNext: eq < 0 && long.required };
  const short = findOption(chain, flag.slice(0, 2));
  if (short) return { text: word, takesNext: shortTakesNext(word, chain) };
  const unknownAllowed = chain.some((c) => (c as unknown as UnknownOptionFlag)._allowUnknownOption);
  const looksLong = /^-[A-Za-z][A-Za-z0-9-]/.test(flag);
  return { text: looksLong && !unknownAllowed ? `-${word}` : word, takesNext: false };
}

/**
 * Whether a word of short options (`-f`, `-fx`, `-ab`) takes the next word as a value, as commander
 * reads it: boolean letters one after the other, until a letter that takes a value, which takes the
 * rest of the word, or the next word when nothing is left.
 */
function shortTakesNext(word: string, chain: readonly Command[]): boolean {
  for (let i = 1; i < word.length; i++) {
    const option = findOption(chain, `-${word[i]}`);
    if (option === undefined) return false;
    if (option.required || option.optional) return i === word.length - 1 && option.required;
  }
  return false;
}

/** The option `flag` (`--name` or `-n`) of one of `chain`'s commands, their help option included. */
function findOption(chain: readonly Command[], flag: string): Option | undefined {
  for (const command of chain) {
    const options = [...command.options, ...command.createHelp().visibleOptions(command)];
    const option = options.find((o) => o.long === flag || o.short === flag);
    if (option) return option;
  }
  return undefined;
}

/** The sub-command of `command` that `word` names (or an alias of it). */
function subcommand(command: Command, word: string): Command | undefined {
  return command.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** What `Command.allowUnknownOption()` sets: commander offers no getter for it. */
interface UnknownOptionFlag {
  _allowUnknownOption?: boolean;
}
