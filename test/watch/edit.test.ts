/**
 * `tgw watch` applies edits: a change to a configuration file, or to a file pulled in with
 * `${file:...}` outside the configuration directory, reaches the API within 2 s (measured and printed),
 * with exactly the calls the change needs; the log names the trigger and the change; no secret
 * (private key, API key token) ever reaches the log.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, keysDescribed, type LogEvent, scratchConfig, startWatch, type Watcher } from "./child.js";

const keyFile = (name: string) =>
  readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");
const PRIVATE_KEY = keyFile("app.example.com.key.pem");

const config = (description: string) => `stack: watch-edit
api_keys:
  ci:
    description: ${description}
tunnel_group_backends:
  web:
    description: \${file:../notes/web.txt}
    labels: { app: web }
tls_certificates:
  app:
    certificate_pem: \${file:../keys/app.crt.pem}
    private_key_pem: \${file:../keys/app.key.pem}
`;

let server: TestServer;
let watcher: Watcher;
const scratch = scratchConfig("tgw-watch-edit-", {});

beforeAll(async () => {
  server = await startTestServer();
  // `.git`: the scratch tree stands for a repository, the tree within which ${file:} may read.
  for (const sub of ["notes", "keys", ".git"]) mkdirSync(join(scratch.root, sub));
  scratch.write("notes/web.txt", "web tunnels");
  scratch.write("keys/app.crt.pem", keyFile("app.example.com.crt.pem"));
  scratch.write("keys/app.key.pem", PRIVATE_KEY);
  scratch.write("config/main.yaml", config("v1"));
  watcher = startWatch({
    dir: scratch.dir,
    api: server,
    args: ["--log-format", "json", "--interval", "60s"],
  });
  await watcher.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 20_000 });
});

afterAll(async () => {
  await watcher?.stop();
  await server?.close();
  scratch.cleanup();
});

const succeeded = (e: LogEvent) => e.event === "reconcile_succeeded";

describe("tgw watch applies edits", () => {
  it("creates everything at startup and says so", () => {
    const first = watcher.events().find(succeeded);
    expect(first?.trigger).toMatchObject({ startup: true, text: "startup" });
    expect(first?.changes).toEqual([
      { address: "api_keys.ci", action: "create" },
      { address: "tls_certificates.app", action: "create" },
      { address: "tunnel_group_backends.web", action: "create" },
    ]);
    expect(typeof first?.durationMs).toBe("number");
  });

  it("applies a file edit with one PATCH (latency printed, not asserted)", async () => {
    const from = watcher.events().length;
    server.resetRequests();
    const t0 = performance.now();
    scratch.write("config/main.yaml", config("v2"));
    while ((await keysDescribed(server, "v2")).length === 0) await new Promise((r) => setTimeout(r, 20));
    // Measured and printed, not asserted: a loaded machine may take longer (issue 12, item 13).
    const latency = performance.now() - t0;
    console.log(`tgw watch: edit-to-apply latency ${Math.round(latency)} ms (default debounce)`);

    const { event } = await watcher.waitForEvent(succeeded, { from });
    expect(event.trigger).toMatchObject({ files: ["config/main.yaml"], startup: false, interval: false });
    expect(event.msg).toMatch(
      /^reconcile #2 \(file change: config\/main\.yaml\): applied 1 update: ~ api_keys\.ci \(\d+m?s\)$/,
    );
    expect(server.mutations().map((r) => `${r.method} ${r.path.replace(/ak_\w+/, ":id")}`)).toEqual([
      "PATCH /api_keys/:id",
    ]);
  });

  it("follows a file pulled in with file: outside the configuration directory", async () => {
    const from = watcher.events().length;
    server.resetRequests();
    scratch.write("notes/web.txt", "web tunnels, v2");
    const { event } = await watcher.waitForEvent(succeeded, { from });
    expect(event.trigger).toMatchObject({ files: ["notes/web.txt"] });
    expect(event.changes).toEqual([{ address: "tunnel_group_backends.web", action: "update" }]);
    const { body } = await callApi(server, "GET", "/backends/tunnel_group");
    expect((body as { backends: { description: string }[] }).backends.map((b) => b.description)).toEqual([
      "web tunnels, v2",
    ]);
    expect(server.mutations().map((r) => r.method)).toEqual(["PATCH"]);
  });

  it("ignores writes to its own state folder (no run, no call)", async () => {
    const from = watcher.events().length;
    server.resetRequests();
    scratch.write("config/.tgw/unrelated.json", "{}");
    scratch.write("config/README.txt", "not configuration");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(
      watcher
        .events()
        .slice(from)
        .filter((e) => e.event.startsWith("reconcile")),
    ).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it("never logs a secret: private key, API key token", () => {
    const secrets = join(scratch.dir, ".tgw", "secrets");
    // The token file and its sidecar (which names the key, never the token).
    const files = readdirSync(secrets).sort();
    expect(files).toEqual(["ci.token", "ci.token.json"]);
    const token = readFileSync(join(secrets, "ci.token"), "utf8").trim();
    expect(readFileSync(join(secrets, "ci.token.json"), "utf8")).not.toContain(token);
    expect(token.length).toBeGreaterThan(10);
    const everything = watcher.lines().join("\n") + watcher.stderr();
    expect(everything).not.toContain(token);
    expect(everything).not.toContain("PRIVATE KEY");
    const keyBody = PRIVATE_KEY.split("\n")[1] as string;
    expect(everything).not.toContain(keyBody);
  });
});
