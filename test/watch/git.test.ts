/**
 * `tgw watch --git`: the configuration comes from a Git repository (a local `file://` one that the
 * test commits to). A new commit is fetched on the interval or at once on `POST /hooks/git` (with the
 * shared secret), applied, and its commit id reported in health, metrics, the log and the state
 * history (PostgreSQL, started by this file). A commit whose configuration is invalid is reported with
 * its commit id and not applied; the last good revision stays applied.
 */
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStateStore } from "../../src/state/postgres/store.js";
import { defaultGitDataDir } from "../../src/watch/fleet.js";
import { freePort } from "../helpers/ports.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { keysDescribed, startWatch } from "./child.js";

const pg = await startTestPostgres();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await pg?.stop();
});

/** A repository with `infra/main.yaml`; `commit(text)` commits a new version and returns its id. */
function repository() {
  const dir = mkdtempSync(join(tmpdir(), "tgw-git-repo-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@e",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@e",
      },
    })
      .toString()
      .trim();
  git("init", "--quiet", "--initial-branch", "main");
  execFileSync("mkdir", ["-p", join(dir, "infra")]);
  return {
    url: `file://${dir}`,
    commit(text: string): string {
      writeFileSync(join(dir, "infra", "main.yaml"), text);
      git("add", "-A");
      git("commit", "--quiet", "-m", "change");
      return git("rev-parse", "HEAD");
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const keyConfig = (description: string, stack = "gitops") =>
  `stack: ${stack}\napi_keys:\n  ci:\n    description: ${description}\n`;

describe.skipIf(pg === undefined)("tgw watch --git", () => {
  it("applies each commit, reports its revision, refuses an invalid one and keeps the last good one", async () => {
    if (pg === undefined) return;
    const repo = repository();
    const first = repo.commit(keyConfig("git-first"));
    const url = new URL(pg.freshSchemaUrl());
    url.password = "";
    const secret = "webhook-secret-1";
    const port = await freePort();
    const health = `http://127.0.0.1:${port}`;
    const w = startWatch({
      dir: "",
      api: server,
      cwd: tmpdir(),
      env: { PGPASSWORD: pg.password, TGW_STATE_URL: url.toString(), TGW_GIT_WEBHOOK_SECRET: secret },
      args: [
        "--git",
        repo.url,
        "--branch",
        "main",
        "--path",
        "infra",
        "--log-format",
        "json",
        "--interval",
        "60s",
        "--health-port",
        String(port),
      ],
    });
    const revision = (status: string, rev: string) => (e: Record<string, unknown>) =>
      e.event === "revision" && e.status === status && e.revision === rev;
    try {
      await w.waitForEvent(revision("applied", first), { timeoutMs: 30_000 });
      expect(await keysDescribed(server, "git-first")).toHaveLength(1);

      // An invalid commit, announced by the webhook: reported with its id, not applied.
      const bad = repo.commit("stack: gitops\napi_keys:\n  ci:\n    descriptio: typo\n");
      const denied = await fetch(`${health}/hooks/git`, {
        method: "POST",
        headers: { authorization: "Bearer wrong" },
      });
      expect(denied.status).toBe(401);
      const body = JSON.stringify({ ref: "refs/heads/main" });
      const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      const queued = await fetch(`${health}/hooks/git`, {
        method: "POST",
        body,
        headers: { "x-hub-signature-256": signature, "content-type": "application/json" },
      });
      expect(queued.status).toBe(202);
      const invalid = await w.waitForEvent(revision("invalid", bad), { timeoutMs: 30_000 });
      expect(invalid.event.appliedRevision).toBe(first);
      expect(invalid.event.msg).toContain(`revision ${bad.slice(0, 12)} is invalid and was not applied`);
      let status = (await (await fetch(`${health}/healthz`)).json()) as {
        revision: { applied: string; fetched: string; invalid: { revision: string; problem: string } };
      };
      expect(status.revision).toMatchObject({ applied: first, fetched: bad, invalid: { revision: bad } });
      expect(status.revision.invalid.problem).toContain("descriptio");
      // Named as the repository names it, at its revision: not under the working copy's temporary path.
      expect(status.revision.invalid.problem).toMatch(
        new RegExp(`^infra\\/main\\.yaml:4:5 at ${bad.slice(0, 12)}: `),
      );
      expect(invalid.event.problem).toBe(status.revision.invalid.problem);
      const logged = w.events().find((e) => e.event === "config_invalid") as unknown as {
        problems: { file: string }[];
        trigger: { files: string[]; text: string };
      };
      expect(logged.problems.map((p) => p.file)).toEqual(["infra/main.yaml"]);
      // The checkout's change that triggered the run, named as the repository names it too.
      expect(logged.trigger.files).toEqual(["infra/main.yaml"]);
      expect(logged.trigger.text).toBe("file change: infra/main.yaml");
      expect(await keysDescribed(server, "git-first")).toHaveLength(1);

      // A good commit again: applied, and recorded with the state.
      const good = repo.commit(keyConfig("git-second"));
      await fetch(`${health}/hooks/git`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
      await w.waitForEvent(revision("applied", good), { timeoutMs: 30_000 });
      expect(await keysDescribed(server, "git-second")).toHaveLength(1);
      status = (await (await fetch(`${health}/healthz`)).json()) as typeof status;
      expect(status.revision.applied).toBe(good);
      // The status page's data: each reconcile with the commit it read.
      const page = (await (await fetch(`${health}/status.json`)).json()) as {
        reconciles: { result: string; revision: string | null }[];
        health: { revision: { applied: string } };
      };
      expect(page.health.revision.applied).toBe(good);
      const results = page.reconciles.map((r) => [r.result, r.revision]);
      expect(results).toContainEqual(["succeeded", first]);
      expect(results).toContainEqual(["invalid_config", bad]);
      expect(results).toContainEqual(["succeeded", good]);
      const metrics = await (await fetch(`${health}/metrics`)).text();
      expect(metrics).toContain(`tgw_applied_revision_info{revision="${good}"} 1`);
      expect(metrics).not.toContain(`revision="${first}"`);
      const store = new PostgresStateStore(
        url.toString().replace("postgres://postgres@", `postgres://postgres:${pg.password}@`),
        {
          stack: "gitops",
        },
      );
      try {
        const [latest] = await store.history(1);
        expect(latest).toMatchObject({ revision: good, writtenBy: "tgw watch" });
      } finally {
        await store.close();
      }
    } finally {
      await w.stop();
      repo.cleanup();
    }
  }, 120_000);
});

describe("tgw watch --git with the default file state", () => {
  it("keeps state and tokens in the data directory across commits: the second commit applies, nothing wedges", async () => {
    const repo = repository();
    const first = repo.commit(keyConfig("file-first", "gitfile"));
    const stateHome = mkdtempSync(join(tmpdir(), "tgw-state-home-"));
    const port = await freePort();
    const w = startWatch({
      dir: "",
      api: server,
      cwd: tmpdir(),
      env: { XDG_STATE_HOME: stateHome },
      args: ["--git", repo.url, "--branch", "main", "--path", "infra", "--log-format", "json"].concat([
        "--interval",
        "1s",
        "--health-port",
        String(port),
      ]),
    });
    const applied = (rev: string) => (e: Record<string, unknown>) =>
      e.event === "revision" && e.status === "applied" && e.revision === rev;
    const dataDir = defaultGitDataDir(repo.url, "main", { XDG_STATE_HOME: stateHome });
    try {
      await w.waitForEvent(applied(first), { timeoutMs: 30_000 });
      const token = readFileSync(join(dataDir, "secrets", "ci.token"), "utf8");
      expect(token).toMatch(/^tgw_/);
      const second = repo.commit(keyConfig("file-second", "gitfile"));
      await w.waitForEvent(applied(second), { timeoutMs: 30_000 });
      const third = repo.commit(`${keyConfig("file-second", "gitfile")}tunnel_group_backends:\n  web: {}\n`);
      await w.waitForEvent(applied(third), { timeoutMs: 30_000 });
      // Two more interval runs after the third commit: all succeed.
      const from = w.events().length;
      await w.waitForEvent((e) => e.event === "reconcile_succeeded", { from, timeoutMs: 30_000 });
      expect(w.events().filter((e) => e.event === "reconcile_failed")).toEqual([]);
      expect(await keysDescribed(server, "file-second")).toHaveLength(1);
      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { status: string };
      expect(health.status).toBe("ok");
      const state = JSON.parse(readFileSync(join(dataDir, "state.json"), "utf8"));
      expect(Object.keys(state.resources).sort()).toEqual(["api_keys.ci", "tunnel_group_backends.web"]);
      expect(readFileSync(join(dataDir, "secrets", "ci.token"), "utf8")).toBe(token);
    } finally {
      await w.stop();
      repo.cleanup();
      rmSync(stateHome, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses --data-dir without --git", async () => {
    const w = startWatch({ dir: tmpdir(), api: server, args: ["--data-dir", "/tmp/x"] });
    expect(await w.exit).toBe(1);
    expect(w.stderr()).toContain("--branch, --path and --data-dir go with --git");
  });
});

describe("tgw watch --git with a credential in the URL", () => {
  it("sends it to the host as a header, never writes it to disk, and keeps the working copy in a 0700 directory of its own", async () => {
    const secret = "planted-git-password-8e1f";
    const authorizations: string[] = [];
    const http = createHttpServer((req, res) => {
      authorizations.push(String(req.headers.authorization ?? ""));
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as { port: number };
    const tmp = mkdtempSync(join(tmpdir(), "tgw-git-tmp-"));
    const w = startWatch({
      dir: "",
      api: server,
      cwd: tmpdir(),
      env: { TMPDIR: tmp, XDG_STATE_HOME: tmp },
      args: ["--git", `http://deployer:${secret}@127.0.0.1:${port}/infra.git`, "--interval", "1s"],
    });
    try {
      const expected = `Basic ${Buffer.from(`deployer:${secret}`).toString("base64")}`;
      for (let i = 0; i < 3000 && !authorizations.includes(expected); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(authorizations).toContain(expected);
      const copies = readdirSync(tmp).filter((n) => n.startsWith("tgw-watch-git-"));
      expect(copies).toHaveLength(1);
      const copy = join(tmp, copies[0] as string);
      expect(statSync(copy).mode & 0o777).toBe(0o700);
      const files = readdirSync(tmp, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(readFileSync(join(f.parentPath, f.name), "latin1")).not.toContain(secret);
      expect(w.lines().join("\n") + w.stderr()).not.toContain(secret);
      await w.stop();
      expect(existsSync(copy)).toBe(false);
    } finally {
      await w.stop();
      http.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
