/**
 * `tgw terraform install [--dir DIR]`: writes terraform-provider-tunnelgw into a filesystem mirror
 * (default Terraform's implied local mirror, `~/.terraform.d/plugins`) and prints the `.terraformrc`
 * lines that make `terraform init` install it from there, offline (docs/terraform.md).
 */
import type { Command } from "commander";
import { installProvider } from "../../terraform/install.js";
import type { RegisterCommand } from "../command.js";
import { helpExamples } from "../output.js";

/** Registers `tgw terraform` and its `install` subcommand. */
export const registerTerraform: RegisterCommand = (program) => {
  const terraform = program
    .command("terraform")
    .description("the Terraform provider terraform-provider-tunnelgw (docs/terraform.md)");
  terraform
    .command("install")
    .description("install the Terraform provider into a filesystem mirror and print the .terraformrc lines")
    .addHelpText(
      "after",
      helpExamples("tgw terraform install", "tgw terraform install --dir /opt/terraform/mirror"),
    )
    .option("--dir <dir>", "mirror directory (default: ~/.terraform.d/plugins)")
    .action((opts: { dir?: string }, _cmd: Command) => {
      const result = installProvider(opts.dir);
      process.stdout.write(
        [
          `Installed terraform-provider-tunnelgw v${result.version}:`,
          `  ${result.executable}`,
          "",
          "Add these lines to ~/.terraformrc (or the file TF_CLI_CONFIG_FILE names), then run terraform init:",
          "",
          result.terraformrc,
          "",
          'In the configuration: required_providers { tunnelgw = { source = "tunnelgw/tunnelgw" } }',
          "",
        ].join("\n"),
      );
    });
};
