/**
 * `tgw apply` and `tgw plan` as users run them, in their own process, against the reference server:
 * examples/complete applied then planned with `--detailed-exitcode` (0: no changes); the confirmation
 * rules; the JSON outcome; no secret in any output.
 */
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { copyExamples, tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await copyExamples();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], input?: string) =>
  tgw(args, {
    cwd: dir,
    server: { url: server.url, token: server.token },
    ...(input === undefined ? {} : { input }),
  });

const SECRETS = ["example-not-a-secret", "BEGIN PRIVATE KEY", "BEGIN EC PRIVATE KEY"];

describe("examples/complete", () => {
  it("plans changes (exit 2), refuses to apply without a terminal or --auto-approve, then applies; plan again exits 0", async () => {
    const before = await run(["plan", "-f", "examples/complete", "--detailed-exitcode"]);
    expect(before.stderr).toContain(`Using the API at ${server.url}.`);
    expect(before.code).toBe(2);
    expect(before.stdout).toMatch(/Plan: \d+ to create, 0 to update, 0 to replace, 0 to delete\./);

    server.resetRequests();
    const refused = await run(["apply", "-f", "examples/complete"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Error [not_confirmed]: stdin is not a terminal");
    expect(server.mutations()).toEqual([]);

    const applied = await run(["apply", "-f", "examples/complete", "--auto-approve"]);
    expect(applied.stderr).toBe(`Using the API at ${server.url}.\n`);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/api_keys\.ci: created ak_\w+ \(\d+\.\ds\)/);
    expect(applied.stdout).toMatch(/Apply complete: \d+ created, 0 updated, 0 replaced, 0 deleted\./);

    const after = await run(["plan", "-f", "examples/complete", "--detailed-exitcode"]);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("No changes. Live state matches the configuration.");

    for (const out of [before, applied, after])
      for (const s of SECRETS) expect(out.stdout + out.stderr).not.toContain(s);
    const state = await readFile(join(dir, "examples/complete/.tgw/state.json"), "utf8");
    for (const s of SECRETS) expect(state).not.toContain(s);

    // The token of the API key went to its token file, mode 0600, and nowhere else.
    const tokenFile = join(dir, "examples/complete/.tgw/secrets/ci.token");
    const token = (await readFile(tokenFile, "utf8")).trim();
    expect(token.length).toBeGreaterThan(10);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect(applied.stdout).not.toContain(token);
    expect(state).not.toContain(token);
  });

  it("prints the JSON plan (stable fields, secrets masked)", async () => {
    const out = await run(["plan", "-f", "examples/complete", "--json"]);
    expect(out.code).toBe(0);
    const plan = JSON.parse(out.stdout);
    expect(plan).toMatchObject({ format_version: 1, stack: "complete", has_changes: false, destroy: false });
    expect(plan.changes.every((c: { action: string }) => c.action === "no-op")).toBe(true);
  });

  it("apply --json --show-tokens reports every outcome and the new tokens", async () => {
    const cfg = join(dir, "examples/kinds/api_key.yaml");
    const out = await run(["apply", "-f", cfg, "--auto-approve", "--json", "--show-tokens"]);
    expect(out.code).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.outcomes.map((o: { status: string }) => o.status).every((s: string) => s === "done")).toBe(
      true,
    );
    expect(result.tokens.length).toBe(
      result.outcomes.filter((o: { action: string }) => o.action === "create").length,
    );
    expect(result.tokens[0].token).toMatch(/\w{10,}/);
    const plain = await run(["apply", "-f", cfg, "--auto-approve", "--json"]);
    expect(JSON.parse(plain.stdout).tokens).toBeUndefined();
  });

  it("every example under examples/kinds applies, then plans no changes", async () => {
    const applied = await run(["apply", "-f", "examples/kinds", "--auto-approve"]);
    expect(applied.code).toBe(0);
    const planned = await run(["plan", "-f", "examples/kinds", "--detailed-exitcode"]);
    expect(planned.stdout).toBe("No changes. Live state matches the configuration.\n");
    expect(planned.code).toBe(0);
  });

  it("a config error is shown with its position and nothing is called", async () => {
    server.resetRequests();
    const out = await run(["plan", "-f", join(dir, "examples/fixtures.yaml")]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/Error \[config\]/);
    expect(server.requests).toEqual([]);
  });

  it("refuses --parallelism 0 before calling the API", async () => {
    server.resetRequests();
    const out = await run(["apply", "-f", "examples/complete", "--auto-approve", "--parallelism", "0"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('Error [usage]: expected a whole number of at least 1, got "0"');
    expect(server.requests).toEqual([]);
  });
});
