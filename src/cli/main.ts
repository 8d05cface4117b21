/**
 * `tgw` entry point: builds the commander program, registers every command from ./commands, runs it
 * and maps errors to exit codes. Only this file decides how an error is shown and how the process
 * exits; commands throw.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { commandsFor } from "./commands/index.js";
import { errorFormat, reportError, setDebug } from "./output.js";
import { doubleDashLongOptions } from "./single-dash.js";

const program = new Command();
program
  .name("tgw")
  .description(
    "Declarative reconciler for the Tunnel Gateway Management API: validate, plan and apply desired state.",
  )
  .version(readVersion(), "-V, --version")
  .option("--debug", "show stack traces and debug logs")
  .option("--no-color", "disable colours (as NO_COLOR does)")
  // Our own `help` (below): commander's reads only the first word of `tgw help state rm`.
  .helpCommand(false)
  .showHelpAfterError()
  .addHelpText(
    "after",
    `
Exit codes:
  0    success (with --detailed-exitcode: no changes)
  1    error: invalid configuration, API error, unsafe plan, lock timeout
  2    with --detailed-exitcode: success, and the plan has changes
  130  interrupted (Ctrl-C), before or during apply
  143  stopped by SIGTERM, as by Ctrl-C (129: SIGHUP)

Environment:
  TGW_API_URL   API base URL; unset: an embedded reference server under .tgw/
  TGW_API_KEY   API key (Bearer token) for TGW_API_URL
  TGW_RATE_LIMIT  client rate limit N/WINDOW (default 120/60s for a remote API) or none
  NO_COLOR      disable colours (also off when output is not a terminal)`,
  );

program.hook("preAction", () => setDebug(Boolean(program.opts().debug)));
program
  .command("version")
  .description("print tgw's version, and Node.js's and the platform's (--json: as one JSON document)")
  .option("--json", "print a JSON document")
  .action((opts: { json?: boolean }) => {
    const info = {
      tgw_version: readVersion(),
      node_version: process.versions.node,
      platform: `${process.platform}_${process.arch}`,
    };
    process.stdout.write(
      opts.json
        ? `${JSON.stringify(info, null, 2)}\n`
        : `tgw v${info.tgw_version}\non ${info.platform}, Node.js v${info.node_version}\n`,
    );
  });
program
  .command("help [command...]")
  .description("show the help of a command or sub-command (tgw help state rm)")
  .action((words: string[]) => showHelp(words));
// A reader that goes away (`tgw state list | head -1`; EIO: the terminal of a SIGHUP closed) must not
// crash a run, nor stop an apply half-way: what is left to print is dropped, and the run finishes (or
// stops, src/cli/stop-signals.ts) as it would have.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "EIO") throw err;
  });
}
// No top-level await: the bundle is a CommonJS script (scripts/bundle.ts), which has none.
void run();

async function run(): Promise<void> {
  // Only the command being run is loaded: start-up stays near a bare `node` (docs/design.md section 6).
  const registrations = await Promise.all(commandsFor(process.argv.slice(2)).map((c) => c.load()));
  for (const register of registrations) register(program);
  // `-auto-approve` as `--auto-approve`, as Terraform takes it (src/cli/single-dash.ts).
  const { args, command } = doubleDashLongOptions(program, process.argv.slice(2));
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    process.exitCode = reportError(err, {
      debug: Boolean(program.opts().debug),
      ...errorFormat(args, command),
    });
  }
}

function readVersion(): string {
  // dist/tgw/ (the bundle), dist/cli/ and src/cli/ are all two levels below the package root.
  return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
}

/**
 * `tgw help [command...]`: the help of the command the words name (`tgw help state rm`, as
 * `tgw state rm --help`), or an error naming the first word that is not a command.
 */
function showHelp(words: readonly string[]): void {
  let command: Command = program;
  for (const word of words) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined)
      command.error(`error: unknown command '${[...words.slice(0, words.indexOf(word) + 1)].join(" ")}'`);
    command = sub as Command;
  }
  command.help();
}
