/**
 * The CLI side of defect "forgetting TGW_API_URL plans against the embedded server": a state written
 * against a real API is refused by a run with the embedded default, naming both, and nothing is
 * written (docs/state.md > Which API a state belongs to). The engine rules: test/engine/state-api.test.ts.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await mkdtemp(join(tmpdir(), "tgw-api-"));
  await writeFile(join(dir, "tgw.yaml"), "stack: api\napi_keys:\n  ci:\n    description: CI\n");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it("a state of a real API refuses the embedded default, naming both; the token file is kept", async () => {
  const applied = await tgw(["apply", "--auto-approve"], { cwd: dir, server });
  expect(applied.code).toBe(0);
  const text = await readFile(join(dir, ".tgw/state.json"), "utf8");
  expect(JSON.parse(text).api).toEqual({ url: server.url, key: expect.stringMatching(/^[0-9a-f]{16}$/) });
  expect(text).not.toContain(server.token);
  const token = await readFile(join(dir, ".tgw/secrets/ci.token"), "utf8");

  const out = await tgw(["apply", "--auto-approve"], { cwd: dir });
  expect(out.code).toBe(1);
  expect(out.stderr).toContain(
    `Error [api_mismatch]: the state .tgw/state.json belongs to the API at ${server.url}`,
  );
  expect(out.stderr).toContain("this run uses the embedded reference server (TGW_API_URL is not set)");
  expect(out.stderr).toContain("--allow-api-change");
  expect(await readFile(join(dir, ".tgw/secrets/ci.token"), "utf8")).toBe(token);
  expect(await readFile(join(dir, ".tgw/state.json"), "utf8")).toBe(text);
});
