/**
 * `tgw endpoints`: the active endpoints (docs/api.md > Endpoint) as a table (id, type, proto, public URL,
 * hostport), or `--json` (the API's endpoint objects). Reads no configuration; `-f` only locates the
 * embedded reference server's data when TGW_API_URL is unset.
 */
import type { Command } from "commander";
import { listEndpoints } from "../../engine/index.js";
import { configDirOf } from "../../state/index.js";
import type { RegisterCommand } from "../command.js";
import { helpExamples } from "../output.js";
import { table } from "../render/table.js";
import { openTarget } from "../target.js";

/** Registers `tgw endpoints`. */
export const registerEndpoints: RegisterCommand = (program) => {
  program
    .command("endpoints")
    .description("list the active endpoints (id, type, proto, public URL, hostport)")
    .addHelpText(
      "after",
      helpExamples(
        "tgw endpoints",
        "TGW_API_URL=https://api.example.com TGW_API_KEY=... tgw endpoints --json",
      ),
    )
    .option(
      "-f, --file <path>",
      "configuration file or directory (only locates the embedded server's data under .tgw/)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--json", "print the endpoints as a JSON array")
    .action(async (opts: { file?: string[]; json?: boolean }, _cmd: Command) => {
      const target = await openTarget({ configDir: configDirOf(opts.file?.[0]), readOnly: true });
      try {
        const endpoints = await listEndpoints(target.api);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(endpoints, null, 2)}\n`);
          return;
        }
        if (endpoints.length === 0) {
          process.stdout.write("No active endpoints.\n");
          return;
        }
        process.stdout.write(
          table(
            ["ID", "TYPE", "PROTO", "PUBLIC URL", "HOSTPORT"],
            endpoints.map((e) => [e.id, e.type, e.proto, e.public_url, e.hostport]),
          ),
        );
      } finally {
        await target.close();
      }
    });
};
