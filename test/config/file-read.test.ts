/**
 * `${file:}` cannot be turned against the machine (issue 12, items 5 and 6): only regular files, read
 * through a reader that stops at 1 MiB, inside the configuration's directory tree unless
 * TGW_FILE_ROOTS widens it, never under /proc, /sys or /dev; a secret read from a file is not shown
 * in messages.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, formatProblem, loadDesiredState } from "../../src/config/index.js";
import { KEYS, problems, writeTree, yaml } from "./helpers.js";

/** Every problem of loading `paths` from `cwd`, formatted (empty when it loads). */
async function problemsOf(paths: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    await loadDesiredState(paths, { cwd, env });
    return "";
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem).join("\n");
    throw err;
  }
}

const describeFrom = (path: string) => yaml("api_keys:", "  ci:", `    description: \${file:${path}}`);

describe("${file:} reads only regular files, within limits", () => {
  it("refuses /dev/zero (size 0 on stat, endless on read) at once", async () => {
    const out = await problems({ "a.yaml": describeFrom("/dev/zero") });
    expect(out).toEqual([
      expect.stringMatching(
        /cannot read \$\{file:\/dev\/zero\}: files under \/proc, \/sys and \/dev are never read/,
      ),
    ]);
  });

  it("stops reading at 1 MiB even when the roots allow /proc-like endless files elsewhere", async () => {
    const out = await problems({ "a.yaml": describeFrom("big.txt"), "big.txt": "x".repeat(1024 * 1024 + 1) });
    expect(out).toEqual([expect.stringContaining("it is larger than 1048576 bytes")]);
  });

  it("refuses a FIFO without blocking", async () => {
    const dir = writeTree({ "a.yaml": describeFrom("pipe") });
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect(await problemsOf([], dir)).toMatch(/it is not a regular file/);
  });

  it("never reads /proc/self/environ, whatever TGW_FILE_ROOTS says, so no secret of the environment shows", async () => {
    const out = await problems(
      { "a.yaml": describeFrom("/proc/self/environ") },
      { env: { TGW_FILE_ROOTS: "/", TGW_API_KEY: "tgw_secret_of_the_environment" } },
    );
    expect(out).toEqual([expect.stringContaining("files under /proc, /sys and /dev are never read")]);
    expect(out.join("\n")).not.toContain("tgw_secret_of_the_environment");
  });
});

describe("${file:} stays in the configuration's directory tree", () => {
  it("refuses a path outside it, and a symbolic link inside it that points outside", async () => {
    const dir = writeTree({
      "conf/a.yaml": yaml(
        "api_keys:",
        "  one: { description: '${file:../outside.txt}' }",
        "  two: { description: '${file:link.txt}' }",
      ),
      "outside.txt": "outside",
    });
    symlinkSync(join(dir, "outside.txt"), join(dir, "conf/link.txt"));
    expect(await problemsOf(["conf"], dir)).toMatch(
      /one\.description: cannot read .*outside the configuration's directory tree[\s\S]*two\.description: cannot read .*outside the configuration's directory tree/,
    );
  });

  it("reads outside when TGW_FILE_ROOTS names the directory", async () => {
    const dir = writeTree({
      "conf/a.yaml": yaml("api_keys:", "  one: { description: '${file:../notes/one.txt}' }"),
      "notes/one.txt": "from notes\n",
    });
    const desired = await loadDesiredState(["conf"], { cwd: dir, env: { TGW_FILE_ROOTS: "notes" } });
    expect(desired.resources[0]?.fields.description).toBe("from notes");
  });

  it("takes the whole Git work tree that holds the configuration as its tree", async () => {
    const dir = writeTree({
      "repo/infra/a.yaml": yaml("api_keys:", "  one: { description: '${file:../notes/one.txt}' }"),
      "repo/notes/one.txt": "in the repository",
    });
    mkdirSync(join(dir, "repo/.git"));
    const desired = await loadDesiredState(["repo/infra"], { cwd: dir, env: {} });
    expect(desired.resources[0]?.fields.description).toBe("in the repository");
  });
});

describe("a secret read from a file", () => {
  it("is not shown in a message about its format", async () => {
    const secret = "not-a-key-but-a-secret-value";
    const dir = writeTree({
      "a.yaml": yaml(
        "tls_certificates:",
        "  app:",
        `    certificate_pem: \${file:${KEYS}app.example.com.crt.pem}`,
        "    private_key_pem: ${file:key.pem}",
      ),
      "key.pem": `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`,
    });
    const message = await problemsOf([], dir, { TGW_FILE_ROOTS: KEYS });
    expect(message).toContain("private_key_pem");
    expect(message).not.toContain(secret);
  });
});
