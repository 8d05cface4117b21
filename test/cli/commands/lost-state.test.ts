/**
 * A lost state file, as a CI job or a person meets it: the plan does not say "No changes" and then
 * fail; it says what it would take over, refuses, and gives the remedy (`--takeover`), and
 * `--takeover` rebuilds the state from the markers with no API call that changes anything, after
 * which the plan is empty.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, tgw } from "../tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await manyBackends(3, "lost");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], ci = true) =>
  tgw([...args, "-f", "."], {
    cwd: dir,
    server: { url: server.url, token: server.token },
    env: ci ? { CI: "true" } : { CI: "" },
  });

it("a lost state: the plan's text agrees with its exit code, and --takeover rebuilds it", async () => {
  expect((await run(["apply", "--auto-approve"])).code).toBe(0);
  await rm(join(dir, ".tgw", "state.json"));

  const refused = await run(["plan", "--detailed-exitcode"]);
  expect(refused.code).toBe(1);
  expect(refused.stdout).not.toContain("No changes");
  expect(refused.stdout).toContain("No API calls, but the state would take over 3 objects");
  expect(refused.stderr).toContain("after a lost state, --takeover rebuilds it from the markers");

  // At a terminal the same: the plan shows what --takeover would do, then refuses.
  const person = await run(["plan"], false);
  expect(person.code).toBe(1);
  expect(person.stdout).toContain("No API calls, but the state would take over 3 objects");

  server.resetRequests();
  const taken = await run(["apply", "--auto-approve", "--takeover"]);
  expect(taken.code).toBe(0);
  // The state records the objects again; their markers keep the old lineage (no call at all).
  expect(server.mutations()).toEqual([]);
  const again = await run(["plan", "--detailed-exitcode"]);
  expect(again.stdout).toContain("No changes.");
  expect(again.code).toBe(0);
});
