/**
 * An invalid edit is reported, never applied, and never ends the watcher: the log shows every problem
 * with its position in the lines `tgw validate` prints, the server receives no call at all while the
 * configuration is invalid (interval runs included), `/healthz` answers 503, and the next valid edit
 * is applied.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { tgw } from "../cli/tgw.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { keysDescribed, scratchConfig, startWatch, type Watcher } from "./child.js";

let server: TestServer;
let watcher: Watcher;
const scratch = scratchConfig("tgw-watch-invalid-", {
  "config/main.yaml": "stack: watch-invalid\napi_keys:\n  ci:\n    description: v1\n",
});

beforeAll(async () => {
  server = await startTestServer();
  watcher = startWatch({ dir: scratch.dir, api: server, args: ["--interval", "1s", "--health-port", "0"] });
  await watcher.waitForLine(/reconcile #1 \(startup\): applied 1 create: \+ api_keys\.ci/, {
    timeoutMs: 20_000,
  });
});

afterAll(async () => {
  await watcher?.stop();
  await server?.close();
  scratch.cleanup();
});

/** The `file:line:col: ...` lines of a text. */
const problemLines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^\S+:\d+:\d+: /.test(l));

it("reports an invalid edit with its positions, calls nothing, then applies the next valid edit", async () => {
  const healthUrl = /health on (http:\S+)/.exec(watcher.lines()[0] ?? "")?.[1] ?? "";
  expect(healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/healthz$/);
  server.resetRequests();
  // Wait until no interval run is in flight, so every request from here on is the watcher's reaction.
  const from = watcher.lines().length;
  await watcher.waitForLine(/reconcile #\d+ \(interval\): no changes/, { from });
  server.resetRequests();

  const mark = watcher.lines().length;
  scratch.write(
    "config/main.yaml",
    `stack: watch-invalid\napi_keys:\n  ci:\n    description: ${"x".repeat(300)}\n    colour: blue\n`,
  );
  const { index } = await watcher.waitForLine(
    /reconcile #\d+ \(file change: config\/main\.yaml\): invalid configuration, nothing applied \(2 problems\)$/,
    { from: mark },
  );
  const logged = problemLines(
    watcher
      .lines()
      .slice(index + 1, index + 3)
      .join("\n"),
  );

  const validate = await tgw(["validate", "-f", "config"], { cwd: scratch.root });
  expect(validate.code).toBe(1);
  expect(logged).toEqual(problemLines(validate.stderr));
  expect(logged).toHaveLength(2);
  expect(logged.join("\n")).toMatch(/^config\/main\.yaml:4:18: api_keys\.ci\.description: .*255/m);
  expect(logged.join("\n")).toMatch(/^config\/main\.yaml:5:5: api_keys\.ci\.colour: /m);

  // The interval finds the same problems: one short line, still no call.
  await watcher.waitForLine(
    /\(interval\): invalid configuration, nothing applied \(2 problems, unchanged since last reported\)/,
    {
      from: index + 1,
    },
  );
  expect(server.requests).toEqual([]);
  const health = await fetch(healthUrl);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({
    status: "invalid_config",
    lastError: { kind: "config", message: expect.stringContaining("config/main.yaml:4:18") },
  });

  const fixed = watcher.lines().length;
  scratch.write("config/main.yaml", "stack: watch-invalid\napi_keys:\n  ci:\n    description: v2\n");
  // Applied by the file change, or by an interval run that read the file first.
  await watcher.waitForLine(/\): applied 1 update: ~ api_keys\.ci/, { from: fixed });
  expect(await keysDescribed(server, "v2")).toHaveLength(1);
  expect(server.mutations().map((r) => r.method)).toEqual(["PATCH"]);
  expect((await fetch(healthUrl)).status).toBe(200);
  expect(watcher.child.exitCode).toBeNull();
});
