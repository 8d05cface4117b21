/**
 * A configuration cannot reach the runner's secrets (docs/design.md section 7), through the CLI: each
 * way a configuration author (a pull request whose plan CI posts, a commit a watcher applies) could
 * carry a planted secret out of the runner, checked for zero occurrences of the secret in what the
 * author can see: plan text (human, JSON, Markdown, a saved plan), the API's writes, the state URL's
 * host, and a watcher's logs, `/metrics`, `/healthz` and `/status.json` (the status page's data).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configurations spell their interpolations
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../../helpers/ports.js";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { callApi, keysDescribed, startWatch } from "../../watch/child.js";
import { type Run, tgw } from "../tgw.js";

const PLANTED = {
  AWS_SECRET_ACCESS_KEY: "planted-aws-3f9a1c",
  PGPASSWORD: "planted-pg-77d2e0",
  TGW_DATA_KEY: "planted-data-key-51be",
};
const GIT_TOKEN = "planted-git-c0ffee";
const OTHER_TOKEN = "planted-token-9e8d7c";

let server: TestServer;
let root: string;
let stack: string;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tgw-exfiltration-"));
  server.resetRequests();
  stack = `exfil-${Math.random().toString(36).slice(2, 8)}`;
  return () => rm(root, { recursive: true, force: true });
});

/** Every planted secret, the runner's API key among them. */
const secrets = () => [...Object.values(PLANTED), GIT_TOKEN, OTHER_TOKEN, server.token];

/** A Git work tree whose remote's credential is in `.git/config`, holding `infra/tgw.yaml`. */
async function repository(yaml: string): Promise<string> {
  const repo = join(root, "repo");
  await mkdir(join(repo, "infra", ".tgw", "secrets"), { recursive: true });
  execFileSync("git", ["init", "--quiet", repo]);
  execFileSync("git", [
    "-C",
    repo,
    "config",
    "http.https://git.example.com/.extraheader",
    `AUTHORIZATION: basic ${GIT_TOKEN}`,
  ]);
  await writeFile(join(repo, "infra", ".tgw", "secrets", "other.token"), OTHER_TOKEN);
  await writeFile(join(repo, "infra", "tgw.yaml"), yaml);
  return join(repo, "infra");
}

const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
  tgw([...args, "-f", "."], {
    cwd: dir,
    server: { url: server.url, token: server.token },
    env: { ...PLANTED, ...env },
  });

/** What the API holds now (API keys and backends), as text. */
const apiText = async () =>
  JSON.stringify([
    (await callApi(server, "GET", "/api_keys?limit=100")).body,
    (await callApi(server, "GET", "/backends/tunnel_group?limit=100")).body,
  ]);

function expectNoSecret(text: string): void {
  for (const secret of secrets()) expect(text).not.toContain(secret);
}

const keyWith = (description: string) => `stack: ${stack}\napi_keys:\n  k: {description: "${description}"}\n`;

describe("a configuration that names a secret of the runner", () => {
  const attempts: [string, RegExp][] = [
    ["${env:TGW_API_KEY}", /TGW_API_KEY is a setting of tgw itself/],
    ["${env:TGW_DATA_KEY}", /TGW_DATA_KEY is a setting of tgw itself/],
    ["${env:PGPASSWORD}", /PGPASSWORD is a setting of the PostgreSQL client/],
    [
      "${env:AWS_SECRET_ACCESS_KEY}",
      /AWS_SECRET_ACCESS_KEY may not be read by a configuration: name it TGW_VAR_/,
    ],
    ["${file:../.git/config}", /files inside a \.git directory are never read/],
    ["${file:.tgw/secrets/other.token}", /files inside a \.tgw directory are never read/],
  ];
  // One configuration makes every attempt (a key each): tgw reports every problem of a load at once.
  const attemptsYaml = () =>
    `stack: ${stack}\napi_keys:\n${attempts.map(([ref], i) => `  k${i}: {description: "x ${ref}"}\n`).join("")}`;

  it("each is refused in every plan format and apply, and the secret is nowhere", async () => {
    const dir = await repository(attemptsYaml());
    const runs: Run[] = await Promise.all([
      run(dir, ["plan"]),
      run(dir, ["plan", "--json"]),
      run(dir, ["plan", "--format", "markdown"]),
      run(dir, ["apply", "--auto-approve"]),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(1);
      expectNoSecret(r.stdout + r.stderr);
    }
    for (const [i, [, refusal]] of attempts.entries()) {
      expect(runs[0]?.stderr).toMatch(new RegExp(`api_keys\\.k${i}\\.description: .*${refusal.source}`));
    }
    expect(server.mutations()).toEqual([]);
    expectNoSecret(await apiText());
  });

  it("allowing every name (TGW_ALLOW_ENV=*) opens no setting of tgw or of the driver, nor .git and .tgw", async () => {
    const dir = await repository(attemptsYaml());
    const r = await run(dir, ["plan"], { TGW_ALLOW_ENV: "*" });
    expect(r.code).toBe(1);
    expectNoSecret(r.stdout + r.stderr);
    // Only the AWS variable is now readable, as the operator said: the others are still refused.
    expect(r.stderr).not.toMatch(/AWS_SECRET_ACCESS_KEY/);
    for (const [i, [ref, refusal]] of attempts.entries()) {
      if (!ref.includes("AWS"))
        expect(r.stderr).toMatch(new RegExp(`api_keys\\.k${i}\\.description: .*${refusal.source}`));
    }
    expect(server.mutations()).toEqual([]);
  });

  it("a variable the operator allows is masked in every plan format, before and after", async () => {
    const value = "allowed-but-masked-4411";
    const dir = await repository(
      `stack: ${stack}\napi_keys:` +
        "\n  k: {description: 'team ${env:TEAM_NAME}'}\n" +
        "tunnel_group_backends:\n  web: {labels: {team: '${env:TGW_VAR_LABEL}', app: web}}\n",
    );
    const env = { TGW_ALLOW_ENV: "TEAM_*", TEAM_NAME: value, TGW_VAR_LABEL: `${value}-label` };
    const out = join(root, "saved.plan");
    const plans = await Promise.all([
      run(dir, ["plan"], env),
      run(dir, ["plan", "--json"], env),
      run(dir, ["plan", "--format", "markdown"], env),
      run(dir, ["plan", "--out", out], env),
    ]);
    for (const r of plans) {
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(value);
      expect(r.stdout).toContain("(sensitive)");
    }
    expect(await readFile(out, "utf8")).not.toContain(value);
    const applied = await run(dir, ["apply", "--auto-approve"], env);
    expect(applied.code).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain(value);
    expect(await apiText()).toContain(`team ${value}`); // what the configuration sends the API, as meant
    // A new value: an update whose both sides (the live one from the API too) are masked.
    const changed = { ...env, TEAM_NAME: "second-value-8812" };
    const replans = await Promise.all(
      [["plan"], ["plan", "--json"], ["plan", "--format", "markdown"]].map((args) => run(dir, args, changed)),
    );
    for (const r of replans) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/api_keys\.k/);
      expect(r.stdout + r.stderr).not.toContain(value);
      expect(r.stdout + r.stderr).not.toContain("second-value-8812");
    }
  });
});

describe("a state: block", () => {
  let listener: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it.each([
    [
      "a host the operator has not allowed",
      "postgres://tgw@127.0.0.1:PORT/tgw",
      /TGW_STATE_HOSTS=127\.0\.0\.1/,
    ],
    [
      "the API key in its password",
      "postgres://tgw:${env:TGW_API_KEY}@127.0.0.1:PORT/tgw",
      /TGW_API_KEY is a setting/,
    ],
    [
      "?host= naming another host",
      "postgres://tgw@db.example/tgw?host=127.0.0.1&port=PORT",
      /host 127\.0\.0\.1/,
    ],
  ])("naming %s never connects", async (_what, url, refusal) => {
    const dir = await repository(`stack: ${stack}\nstate:\n  url: ${url.replace("PORT", String(port))}\n`);
    for (const args of [["plan"], ["apply", "--auto-approve"], ["state", "list"]]) {
      const r = await run(dir, args, { TGW_STATE_HOSTS: "db.example" });
      // `state list` falls back to the default file when the configuration does not load.
      if (args[0] !== "state" || !/TGW_API_KEY/.test(url)) {
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(refusal);
      }
      expectNoSecret(r.stdout + r.stderr);
    }
    expect(connections).toBe(0);
  });
});

describe("tgw watch", () => {
  it("a configuration naming the API key: the secret is in no log line, nor in /metrics, /healthz or /status.json", async () => {
    const dir = await repository(keyWith("x ${env:TGW_API_KEY}"));
    const healthPort = await freePort();
    const w = startWatch({
      dir,
      api: server,
      env: { ...PLANTED, TGW_VAR_OK: "allowed-in-watch-5150" },
      args: ["--log-format", "json", "--health-port", String(healthPort), "--interval", "1s"],
    });
    try {
      await w.waitForEvent((e) => /config|invalid/.test(String(e.event)) || /TGW_API_KEY/.test(e.msg), {
        timeoutMs: 30_000,
      });
      const health = await (await fetch(`http://127.0.0.1:${healthPort}/healthz`)).text();
      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      const page = await (await fetch(`http://127.0.0.1:${healthPort}/status.json`)).text();
      expectNoSecret(w.lines().join("\n") + w.stderr() + health + metrics + page);
      expect(w.lines().join("\n")).toContain("TGW_API_KEY is a setting of tgw itself");
      // The configuration fixed to read an allowed variable: applied, and the value in no output.
      await writeFile(join(dir, "tgw.yaml"), keyWith("x ${env:TGW_VAR_OK}"));
      await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 30_000 });
      const after = [
        w.lines().join("\n"),
        w.stderr(),
        await (await fetch(`http://127.0.0.1:${healthPort}/healthz`)).text(),
        await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text(),
        await (await fetch(`http://127.0.0.1:${healthPort}/status.json`)).text(),
      ].join("\n");
      expectNoSecret(after);
      expect(after).not.toContain("allowed-in-watch-5150");
      expect(await keysDescribed(server, "x allowed-in-watch-5150")).toHaveLength(1);
    } finally {
      await w.stop();
    }
  }, 90_000);
});
