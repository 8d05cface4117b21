/**
 * Every `tgw` command, in the order `tgw --help` lists them, each with the module that registers it.
 * Modules are loaded on demand (src/cli/main.ts): a run loads only the command it runs, so
 * `tgw validate` never loads the API client and `tgw --version` loads no command at all.
 */
import type { RegisterCommand } from "../command.js";

/** A command's name (the first word after `tgw`) and how to load its registration. */
export interface CommandEntry {
  name: string;
  load(): Promise<RegisterCommand>;
}

export const commands: CommandEntry[] = [
  { name: "validate", load: async () => (await import("./validate.js")).registerValidate },
  { name: "plan", load: async () => (await import("./plan.js")).registerPlan },
  { name: "apply", load: async () => (await import("./apply.js")).registerApply },
  { name: "show", load: async () => (await import("./show.js")).registerShow },
  { name: "watch", load: async () => (await import("./watch.js")).registerWatch },
  { name: "destroy", load: async () => (await import("./destroy.js")).registerDestroy },
  { name: "import", load: async () => (await import("./import.js")).registerImport },
  { name: "generate", load: async () => (await import("./generate.js")).registerGenerate },
  { name: "endpoints", load: async () => (await import("./endpoints.js")).registerEndpoints },
  { name: "state", load: async () => (await import("./state.js")).registerState },
  { name: "serve", load: async () => (await import("./serve.js")).registerServe },
  { name: "terraform", load: async () => (await import("./terraform.js")).registerTerraform },
  { name: "completion", load: async () => (await import("./completion.js")).registerCompletion },
];

/** The hidden command the completion scripts call; it answers from every command's definition. */
const completionServer: CommandEntry = {
  name: "completion-server",
  load: async () => (await import("./completion.js")).registerCompletionServer,
};

/**
 * The commands a run needs, from its arguments (without `node` and the script): the named command
 * alone; none for `--version` with no command and for `version`; every one otherwise (help, an unknown word that gets a
 * "did you mean", no command at all).
 */
export function commandsFor(args: readonly string[]): CommandEntry[] {
  const word = args.find((a) => !a.startsWith("-"));
  if (word === "completion-server") return [...commands, completionServer];
  const named = commands.find((c) => c.name === word);
  if (named) return [named];
  if (word === undefined && args.some((a) => a === "-V" || a === "--version")) return [];
  if (word === "version") return []; // main.ts's own
  return commands;
}
