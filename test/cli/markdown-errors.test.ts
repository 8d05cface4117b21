/**
 * `tgw plan --format markdown > plan.md` when the plan fails (issue 46 §2): stdout gets a Markdown
 * document of the error for the pull request comment (as `--json` gets a JSON one), with the same
 * exit code: every problem of an invalid configuration at its `file:line:col`, an API error as
 * stderr has it, a state lock error naming the holder.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMENT_LIMIT } from "../../src/cli/render/comment.js";
import { renderErrorMarkdown } from "../../src/cli/render/error-markdown.js";
import { ConfigError } from "../../src/config/errors.js";
import { LockTimeoutError } from "../../src/state/errors.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { manyBackends, tgw } from "./tgw.js";

describe("through the CLI", () => {
  let server: TestServer;
  let invalid: string;
  let valid: string;
  beforeAll(async () => {
    server = await startTestServer();
    invalid = await mkdtemp(join(tmpdir(), "tgw-md-errors-"));
    await writeFile(
      join(invalid, "tgw.yaml"),
      "stack: md\napi_keys:\n  ci: {descriptio: x}\n  ops: {description: 5, owner_id: nope}\n",
    );
    valid = await manyBackends(1, "md");
  });
  afterAll(async () => {
    await server.close();
    await rm(invalid, { recursive: true, force: true });
    await rm(valid, { recursive: true, force: true });
  });

  it("an invalid configuration: every problem at its file:line:col, with its hint", async () => {
    const r = await tgw(["plan", "-f", ".", "--format", "markdown"], { cwd: invalid });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        "### `tgw plan` failed",
        "",
        "**Error** `[config]`: 3 problems in the configuration:",
        "",
        "- `tgw.yaml:3:8` `api_keys.ci.descriptio`: unknown field of an API key (did you mean description?); expected description, metadata, owner_id, prevent_destroy, token_file or token_kept_elsewhere",
        "- `tgw.yaml:4:22` `api_keys.ops.description`: must be a string (got a whole number): put it in quotes",
        "- `tgw.yaml:4:35` `api_keys.ops.owner_id`: must be a user id (usr\\_...) or a bot id (bot\\_...)",
        "",
      ].join("\n"),
    );
    // stderr as before.
    expect(r.stderr).toContain("Error [config]: 3 problems in the configuration:\ntgw.yaml:3:8:");
    // `--format json` is `--json`: a JSON document.
    const json = await tgw(["plan", "-f", ".", "--format=json"], { cwd: invalid });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ format_version: 1, error: { code: "config" } });
  });

  it("an API error, as stderr has it", async () => {
    const r = await tgw(["plan", "-f", ".", "--format", "markdown"], {
      cwd: valid,
      server: { url: server.url, token: "not-a-token" },
    });
    expect(r.code).toBe(1);
    const error = r.stderr.match(/Error \[api\]: (.*)/)?.[1];
    expect(error).toMatch(/^GET \/\S+: 401 /);
    expect(r.stdout).toBe(`### \`tgw plan\` failed\n\n**Error** \`[api]\`: ${error}\n\n`);
  });
});

describe("renderErrorMarkdown", () => {
  it("a state lock error names the state and its holder", () => {
    const err = new LockTimeoutError(
      ".tgw/state.json",
      { holder: "tgw apply", pid: 1234, hostname: "ci-7", since: "2026-01-02T10:02:11Z", lockId: "x" },
      30_000,
    );
    expect(renderErrorMarkdown(err, "tgw plan")).toMatch(
      /^### `tgw plan` failed\n\n\*\*Error\*\* `\[state_locked\]`: state \.tgw\/state\.json is locked by tgw apply \(pid 1234 on ci-7, since 2026-01-02 \d\d:\d\d:11\); waited 30s\n\n$/,
    );
  });

  it("a message of several lines: its first line, the rest in a code block; a bug says so", () => {
    const err = Object.assign(new Error("apply failed: 1 change failed\n  a.b: boom\n0 done"), {
      code: "apply_failed",
    });
    expect(renderErrorMarkdown(err, "tgw apply")).toBe(
      "### `tgw apply` failed\n\n**Error** `[apply_failed]`: apply failed: 1 change failed\n\n```text\n  a.b: boom\n0 done\n```\n\n",
    );
    expect(renderErrorMarkdown(new TypeError("x is <undefined>"), "tgw plan")).toContain(
      "**Internal error** (a bug in tgw, please report it): x is &lt;undefined&gt;",
    );
  });

  it("stays within a comment, saying how many problems were left out", () => {
    const problems = Array.from({ length: 2000 }, (_, i) => ({
      file: "tgw.yaml",
      line: i + 1,
      col: 3,
      path: `api_keys.k${i}.descriptio`,
      message: "unknown field of an API key (did you mean description?)",
    }));
    const md = renderErrorMarkdown(new ConfigError(problems), "tgw plan");
    expect(md.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(md).toMatch(/\n\*\*Truncated:\*\* \d+ more problems are not shown/);
  });
});
