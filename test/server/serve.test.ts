/**
 * `tgw serve` as a user runs it: the real CLI in its own process. It prints its URL (and a generated
 * bootstrap token once), serves the API, exposes the recorded requests at `GET /debug/requests` for
 * tests that drive it from outside, writes a request log that never holds a token, private key or
 * secret, and shuts down cleanly on SIGTERM and SIGINT.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { spawnTgw, tgw } from "../cli/tgw.js";
import { caller } from "./http.js";

const FIXTURES = fileURLToPath(new URL("../../examples/fixtures.yaml", import.meta.url));
const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

const dir = mkdtempSync(join(tmpdir(), "tgw-serve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  url: string;
  exit: Promise<number | null>;
}

/** Starts `tgw serve` with `args` and waits for its URL. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawnTgw(["serve", "--port", "0", ...args], {
    cwd: dir,
    env: { TGW_BOOTSTRAP_TOKEN: "", TGW_DATA_KEY: "serve-test-data-key-0123", ...env },
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => {
    out += String(d);
  });
  child.stderr?.on("data", (d) => {
    err += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`tgw serve did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? "";
  return { child, stdout: () => out, stderr: () => err, url, exit };
}

test("--log-format human: one readable line per request, no secret; json is the default off a terminal", async () => {
  const served = await serve(["--log-format", "human"], {
    TGW_BOOTSTRAP_TOKEN: "human-log-token-0123456789",
  });
  const call = caller(served.url, "human-log-token-0123456789");
  const created = await call("POST", "/api_keys", { description: "logged" });
  expect((await call("GET", "/api_keys?limit=1")).status).toBe(200);
  served.child.kill("SIGTERM");
  expect(await served.exit).toBe(0);
  const lines = served.stderr().split("\n");
  expect(
    lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/api_keys 201 [\d.]+ ms op_\w+$/.test(l)),
  ).toBe(true);
  expect(lines.some((l) => /INFO: GET \/api_keys\?limit=1 200 [\d.]+ ms op_\w+$/.test(l))).toBe(true);
  expect(served.stderr()).not.toContain("{");
  expect(served.stderr()).not.toContain(String(created.body.token));
  expect(served.stderr()).not.toContain("human-log-token");

  const bad = await tgw(["serve", "--log-format", "pretty"], { cwd: dir });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("--log-format must be human or json, got pretty");
});

test("prints its URL and a generated token once; serves; logs no secret; exits on SIGTERM", async () => {
  const dataPath = join(dir, "serve.db");
  const first = await serve(["--data", dataPath, "--fixtures", FIXTURES]);
  const token = /TGW_API_KEY=(\S+)/.exec(first.stdout())?.[1] ?? "";
  expect(token).toMatch(/^tgw_/);
  expect(first.stdout()).toContain(`export TGW_API_URL=${first.url}`);
  expect(first.stdout()).toContain("shown only once");

  const call = caller(first.url, token);
  const created = await call("POST", "/api_keys", { description: "from outside" });
  expect(created.status).toBe(201);
  const secretKey = key("app.example.com.key.pem");
  expect(
    (
      await call("POST", "/tls_certificates", {
        certificate_pem: key("app.example.com.crt.pem"),
        private_key_pem: secretKey,
      })
    ).status,
  ).toBe(201);
  await call("PUT", "/edges/https/edghts_example01/routes/edghtsrt_example01/oidc", {
    issuer: "https://id.example.com",
    client_id: "c",
    client_secret: "oidc-secret-value",
  });
  await call("POST", "/api_keys", { descriptoin: "typo" });

  const recorded = await call("GET", "/debug/requests");
  expect(recorded.body.requests).toEqual([
    { method: "POST", path: "/api_keys", status: 201 },
    { method: "POST", path: "/tls_certificates", status: 201 },
    { method: "PUT", path: "/edges/https/edghts_example01/routes/edghtsrt_example01/oidc", status: 200 },
    { method: "POST", path: "/api_keys", status: 400 },
  ]);
  expect((await call("DELETE", "/debug/requests")).status).toBe(204);
  expect((await call("GET", "/debug/requests")).body.requests).toEqual([]);

  first.child.kill("SIGTERM");
  expect(await first.exit).toBe(0);
  expect(first.stdout()).toContain("shutting down");

  // The log: one JSON line per request with method, url, status, duration and operation id.
  const lines = first
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const requests = lines.filter((l) => l.msg === "request");
  expect(requests.length).toBeGreaterThanOrEqual(4);
  for (const line of requests) {
    expect(line).toMatchObject({
      method: expect.any(String),
      url: expect.any(String),
      status: expect.any(Number),
    });
    expect(line.operation_id).toMatch(/^op_/);
    expect(typeof line.duration_ms).toBe("number");
  }
  const log = first.stderr();
  for (const secret of [
    token,
    created.body.token,
    "PRIVATE KEY",
    secretKey.split("\n")[1],
    "oidc-secret-value",
    "descriptoin",
  ]) {
    expect(log).not.toContain(secret);
  }

  // Second start on the same data: no new token printed; the first one still works; SIGINT stops it.
  const second = await serve(["--data", dataPath]);
  try {
    expect(second.stdout()).not.toContain("TGW_API_KEY");
    expect((await caller(second.url, token)("GET", "/api_keys")).status).toBe(200);
  } finally {
    second.child.kill("SIGINT");
  }
  expect(await second.exit).toBe(0);
});

test("TGW_BOOTSTRAP_TOKEN is an admin token for the run and is not printed", async () => {
  const served = await serve(["--log-level", "silent"], { TGW_BOOTSTRAP_TOKEN: "my-run-token" });
  try {
    expect(served.stdout()).not.toContain("my-run-token");
    expect((await caller(served.url, "my-run-token")("GET", "/debug/requests")).status).toBe(200);
  } finally {
    served.child.kill("SIGTERM");
  }
  expect(await served.exit).toBe(0);
});

test("bad options are usage errors", async () => {
  const bad = await tgw(["serve", "--rate-limit", "lots"], { cwd: dir });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('invalid rate limit "lots"');
});
