/**
 * External tools the crypto tests use as independent judges: `openssl` (makes certificates and keys
 * that did not come from our code) and `ssh-keygen` (reads our SSH keys and certificates). A test that
 * needs a missing tool is skipped, and its name says why.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function found(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: "ignore" });
  return result.error === undefined;
}

/** Whether `openssl` runs. */
export const hasOpenssl = found("openssl", ["version"]);
/** Whether `ssh-keygen` runs (it exits 1 on `-?`, but it runs). */
export const hasSshKeygen = found("ssh-keygen", ["-?"]);

/** Suffix for the names of tests that need a tool, so a skipped test says why. */
export const needsOpenssl = hasOpenssl ? "" : " (SKIPPED: openssl not found on PATH)";
export const needsSshKeygen = hasSshKeygen ? "" : " (SKIPPED: ssh-keygen not found on PATH)";

/**
 * Run a command and return its stdout; throw with its stderr when it fails. `TZ=UTC` so that dates
 * printed by ssh-keygen and openssl are in UTC.
 */
export function run(command: string, args: string[], options: { cwd?: string; input?: string } = {}): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    input: options.input,
    encoding: "utf8",
    env: { ...process.env, TZ: "UTC" },
  });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return result.stdout;
}

/** A fresh temporary directory and a function that removes it. */
export function tempDir(): { dir: string; path: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "tgw-crypto-"));
  return {
    dir,
    path: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
