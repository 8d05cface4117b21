/**
 * `tgw import ADDRESS [ID]`: adopt an existing live object as ADDRESS of the configuration (docs/design.md
 * section 3.2). Writes this stack's ownership marker into the object's metadata (one PATCH; none with
 * `ownership: state-only`) and records it in the state. A module is imported by its address alone.
 * Then `tgw plan` shows how the object differs from the configuration.
 */

import { parseDuration } from "../../duration.js";
import { checkStateApi, importResource } from "../../engine/index.js";
import type { RegisterCommand } from "../command.js";
import { type ApiCheckFlags, type CommonOptions, withApiCheck, withConfig } from "../options.js";
import { color, helpExamples, warn } from "../output.js";
import { holder, openTarget, openWorkspace } from "../target.js";

interface ImportOptions extends CommonOptions, ApiCheckFlags {
  lockTimeout?: string;
}

/** Registers `tgw import`. */
export const registerImport: RegisterCommand = (program) => {
  withApiCheck(
    withConfig(
      program
        .command("import")
        .description("adopt an existing object as ADDRESS of the configuration (writes its ownership marker)")
        .addHelpText(
          "after",
          helpExamples(
            "tgw import api_keys.legacy ak_2Ab3Cd -f infra/",
            "tgw import edges.tls.edgtls_123.backend -f infra/   # a module: its address is its identity",
          ),
        )
        .argument("<address>", "address in the configuration, e.g. api_keys.ci")
        .argument("[id]", "id of the live object, e.g. ak_123 (modules: omit, their path is their id)"),
    ),
  )
    .option("--lock-timeout <duration>", "how long to wait for the state lock (default 0s)")
    .action(async (address: string, id: string | undefined, opts: ImportOptions) => {
      const lockTimeoutMs = parseDuration(opts.lockTimeout ?? "0s", "--lock-timeout");
      const ws = await openWorkspace(opts);
      const target = await openTarget({ configDir: ws.configDir });
      try {
        // The state must belong to this API (docs/state.md > Which API a state belongs to).
        const warnings = checkStateApi(await ws.store.read(), target.identity, {
          location: ws.store.location,
          ...(opts.allowApiChange ? { allowApiChange: true } : {}),
        });
        for (const w of warnings) warn(w);
        const { record, markerWritten } = await importResource({
          desired: ws.desired,
          api: target.api,
          store: ws.store,
          address,
          ...(id === undefined ? {} : { id }),
          lockTimeoutMs,
          lockHolder: holder("import"),
        });
        const note = markerWritten ? " (ownership marker written)" : "";
        process.stdout.write(`${color.green(`${address}: imported ${record.id}`)}${note}\n`);
        process.stdout.write(color.dim("Run tgw plan to see how it differs from the configuration.\n"));
      } finally {
        await target.close();
      }
    });
};
