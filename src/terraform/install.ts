/**
 * `tgw terraform install`: puts terraform-provider-tunnelgw into a filesystem mirror so that
 * `terraform init` finds it offline. The mirror layout is Terraform's
 * `<dir>/registry.terraform.io/tunnelgw/tunnelgw/<version>/<os>_<arch>/terraform-provider-tunnelgw_v<version>`;
 * that file is a small executable wrapper starting this package's provider with the current Node.js.
 * Nothing else is written in that folder (any extra file would change the provider's hash).
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PROVIDER_SOURCE, packageVersion } from "./provider-schema.js";

/** What `installProvider` wrote and what to put in the CLI configuration. */
export interface InstallResult {
  /** The mirror directory (absolute). */
  dir: string;
  /** The wrapper written. */
  executable: string;
  version: string;
  /** Lines for `~/.terraformrc` (or the file `TF_CLI_CONFIG_FILE` names). */
  terraformrc: string;
}

/** Terraform's platform name of this machine (`linux_amd64`, `darwin_arm64`...). */
export function terraformPlatform(): string {
  const arch =
    { x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm" }[process.arch as string] ?? process.arch;
  return `${process.platform}_${arch}`;
}

/** The default mirror: Terraform's implied local mirror directory of this user. */
export function defaultMirrorDir(): string {
  return join(homedir(), ".terraform.d", "plugins");
}

/** The command line the wrapper runs: node with the built provider, or with tsx on the sources. */
function providerCommand(): string[] {
  // `../terraform/`, not `./`: this module also runs from the CLI bundle in dist/tgw/ (scripts/bundle.ts).
  const js = fileURLToPath(new URL("../terraform/main.js", import.meta.url));
  if (existsSync(js)) return [process.execPath, js];
  const ts = fileURLToPath(new URL("./main.ts", import.meta.url));
  const tsx = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));
  return [process.execPath, "--import", tsx, ts];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the wrapper into the mirror at `dir` (default `~/.terraform.d/plugins`).
 * @throws Error from the file system (not writable...).
 */
export function installProvider(dir = defaultMirrorDir()): InstallResult {
  const version = packageVersion();
  const root = resolve(dir);
  const folder = join(root, ...PROVIDER_SOURCE.split("/"), version, terraformPlatform());
  mkdirSync(folder, { recursive: true });
  const executable = join(folder, `terraform-provider-tunnelgw_v${version}`);
  writeFileSync(executable, `#!/bin/sh\nexec ${providerCommand().map(quote).join(" ")} "$@"\n`);
  chmodSync(executable, 0o755);
  const terraformrc = [
    "provider_installation {",
    "  filesystem_mirror {",
    `    path    = ${JSON.stringify(root)}`,
    `    include = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    "  }",
    "  direct {",
    `    exclude = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    "  }",
    "}",
  ].join("\n");
  return { dir: root, executable, version, terraformrc };
}
