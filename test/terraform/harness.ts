/**
 * Running the real `terraform` against a reference server: a temporary directory with a filesystem
 * mirror holding terraform-provider-tunnelgw (`installProvider`), a CLI configuration that installs it
 * from there only (so `terraform init` works offline), and `tf(...)` to run commands in a workspace.
 * The provider installed is a bundle of this checkout's sources, made once per test file
 * (scripts/bundle.ts `bundleProvider`), as `tgw terraform install` installs it from a built package.
 * When `terraform` is not on the PATH the tests are skipped, and fail under `CI=true` saying so.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleProvider } from "../../scripts/bundle.js";
import { installProvider } from "../../src/terraform/install.js";
import { isLeftover } from "../helpers/examples.js";

/** True when `terraform` runs; throws under CI=true when it does not. */
export function terraformAvailable(): boolean {
  const found = spawnSync("terraform", ["version"], { stdio: "ignore" }).status === 0;
  if (!found && process.env.CI === "true") {
    throw new Error(
      "terraform is not on the PATH: the Terraform provider tests need Terraform 1.11 or later",
    );
  }
  return found;
}

/** This checkout's provider bundle, made when a test file loads this module (removed at its exit). */
export const PROVIDER_BUNDLE = await (async () => {
  const dir = mkdtempSync(join(tmpdir(), "tgw-tf-provider-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  await bundleProvider(join(dir, "provider"));
  return join(dir, "provider");
})();

/** The result of one terraform command. */
export interface TfResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary home for terraform runs: the mirror and CLI configuration, shared by its workspaces. */
export class TerraformHome {
  readonly root = mkdtempSync(join(tmpdir(), "tgw-tf-"));
  readonly #rc: string;
  /** The installed provider's launcher (what Terraform starts). */
  readonly executable: string;
  /** The provider's code caches (src/terraform/launcher.ts): in this home, never the user's. */
  readonly cacheDir = join(this.root, "cache");
  /** Extra environment of every terraform run (e.g. `TGW_TERRAFORM_REFRESH`). */
  env: Record<string, string> = {};

  constructor(
    readonly apiUrl: string,
    readonly apiKey: string,
  ) {
    const result = installProvider(join(this.root, "mirror"), PROVIDER_BUNDLE);
    this.executable = result.executable;
    this.#rc = join(this.root, "terraformrc");
    writeFileSync(this.#rc, `${result.terraformrc}\n`);
  }

  /** A fresh workspace directory `name` (optionally a copy of `from`). */
  workspace(name: string, from?: string): string {
    const dir = join(this.root, name);
    // Never what a user's terraform run left in examples/ (.terraform/, state, lock file).
    if (from) cpSync(from, dir, { recursive: true, filter: (src) => !isLeftover(src) });
    else mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Starts `terraform args` in `dir` (the caller waits for it, or kills it). */
  spawn(dir: string, ...args: string[]): ChildProcessWithoutNullStreams {
    return spawn("terraform", args, {
      cwd: dir,
      env: {
        ...process.env,
        TF_CLI_CONFIG_FILE: this.#rc,
        CHECKPOINT_DISABLE: "1",
        TF_IN_AUTOMATION: "1",
        TGW_API_URL: this.apiUrl,
        TGW_API_KEY: this.apiKey,
        TGW_CACHE_DIR: this.cacheDir,
        NO_COLOR: "1",
        ...this.env,
      },
    });
  }

  /** Runs `terraform args` in `dir`. */
  tf(dir: string, ...args: string[]): Promise<TfResult> {
    return new Promise((resolve, reject) => {
      const child = this.spawn(dir, ...args);
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** `args` for a non-interactive apply without colours. */
export const APPLY = ["apply", "-auto-approve", "-input=false", "-no-color"];
/** `args` for a plan whose exit code says whether it has changes (0 none, 2 changes). */
export const PLAN = ["plan", "-detailed-exitcode", "-input=false", "-no-color"];
