/**
 * `tgw watch` reports an API key whose token is lost (its token file removed after the key was made):
 * a warning in the log, `/healthz` degraded (503) naming the key, and `tgw_lost_tokens` in `/metrics`
 * (issue 31: a token is never lost without a word).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../helpers/ports.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { scratchConfig, startWatch } from "./child.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it("a removed token file makes the watcher degraded, names the key, and counts it in /metrics", async () => {
  const config = scratchConfig("tgw-lost-token-", {
    "config/tgw.yaml": "stack: lost-token\napi_keys:\n  ci: {description: lost token}\n",
  });
  const port = await freePort();
  const w = startWatch({
    dir: config.dir,
    api: server,
    args: ["--log-format", "json", "--interval", "1s", "--health-port", String(port)],
  });
  try {
    await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 30_000 });
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return { code: res.status, body: (await res.json()) as { status: string; lostTokens: string[] } };
    };
    expect(await health()).toMatchObject({ code: 200, body: { status: "ok", lostTokens: [] } });
    rmSync(join(config.dir, ".tgw", "secrets", "ci.token"));
    const from = w.events().length;
    await w.waitForEvent((e) => e.event === "reconcile_succeeded" && Array.isArray(e.lostTokens), {
      from,
      timeoutMs: 30_000,
    });
    expect(await health()).toMatchObject({
      code: 503,
      body: { status: "degraded", lostTokens: ["api_keys.ci"] },
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(/^tgw_lost_tokens 1$/m);
    expect(w.lines().join("\n")).toMatch(/the token of api_keys\.ci .* is not on this machine/);
  } finally {
    await w.stop();
    config.cleanup();
  }
}, 90_000);
