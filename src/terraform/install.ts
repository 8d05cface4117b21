/**
 * `tgw terraform install`: puts terraform-provider-tunnelgw into a filesystem mirror so that
 * `terraform init` finds it offline. The mirror layout is Terraform's
 * `<dir>/registry.terraform.io/tunnelgw/tunnelgw/<version>/<os>_<arch>/terraform-provider-tunnelgw_v<version>`.
 *
 * From a built package, that folder receives the provider bundle (`npm run build` writes it to
 * dist/tgw/provider/, scripts/bundle.ts) and a launcher that runs it with the `node` found on `PATH`
 * (through its `launch.cjs`, which keeps a V8 code cache of the bundle in the user's cache directory):
 * nothing in the folder names this machine's paths, so two installs of one version on two machines
 * have one hash (`terraform providers lock` works, and an upgrade changes it). Running from the
 * sources (no build), the launcher starts src/terraform/main.ts through tsx instead, with this
 * checkout's paths.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
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

/** The provider bundle of a built package (scripts/bundle.ts `bundleProvider`), if there is one. */
export function builtProvider(): string | undefined {
  // Beside the CLI bundle that runs this (dist/tgw/), else the package's build seen from the sources.
  for (const rel of ["./provider/", "../../dist/tgw/provider/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "launch.cjs"))) return dir;
  }
  return undefined;
}

/** The launcher's command line without a bundle: tsx on this checkout's sources. */
function sourcesCommand(): string[] {
  const ts = fileURLToPath(new URL("./main.ts", import.meta.url));
  const tsx = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));
  return [process.execPath, "--import", tsx, ts];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the provider into the mirror at `dir` (default `~/.terraform.d/plugins`), replacing what an
 * earlier install of this version left there.
 * @param bundle a folder made by scripts/bundle.ts `bundleProvider`; default the built package's,
 *   and without one the sources through tsx.
 * @throws Error from the file system (not writable...).
 */
export function installProvider(dir = defaultMirrorDir(), bundle = builtProvider()): InstallResult {
  const version = packageVersion();
  const root = resolve(dir);
  const folder = join(root, ...PROVIDER_SOURCE.split("/"), version, terraformPlatform());
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const executable = join(folder, `terraform-provider-tunnelgw_v${version}`);
  if (bundle === undefined) {
    writeFileSync(executable, `#!/bin/sh\nexec ${sourcesCommand().map(quote).join(" ")} "$@"\n`);
  } else {
    cpSync(bundle, folder, { recursive: true });
    writeFileSync(executable, '#!/bin/sh\nexec node "$(dirname "$0")/launch.cjs" "$@"\n');
  }
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
