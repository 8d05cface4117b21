/**
 * Two workspaces of one stack (two checkouts, each with its own state file) against one server: the
 * second workspace's plan and apply are refused under --detailed-exitcode / CI=true, naming both
 * lineages and the objects, and proceed with --takeover; the objects it PATCHes anyway get its
 * lineage in their markers, the others keep theirs (no extra call).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { decodeMetadata } from "../../../src/model/index.js";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { manyBackends, tgw } from "../tgw.js";

let server: TestServer;
let first: string;
let second: string;
beforeAll(async () => {
  server = await startTestServer();
  first = await manyBackends(2, "shared");
  second = await manyBackends(2, "shared");
});
afterAll(async () => {
  await server.close();
  await rm(first, { recursive: true, force: true });
  await rm(second, { recursive: true, force: true });
});

const run = (dir: string, args: string[]) =>
  tgw(args, { cwd: dir, server: { url: server.url, token: server.token }, env: { CI: "true" } });
const lineageOf = async (dir: string) =>
  (JSON.parse(await readFile(join(dir, ".tgw", "state.json"), "utf8")) as { lineage: string }).lineage;
const markers = async () => {
  const res = await fetch(`${server.url}/backends/tunnel_group`, {
    headers: { authorization: `Bearer ${server.token}`, "service-version": "2" },
  });
  const { backends } = (await res.json()) as { backends: { description: string; metadata: string }[] };
  return Object.fromEntries(backends.map((b) => [b.description, decodeMetadata(b.metadata).marker]));
};

it("refuses another workspace's objects unless --takeover; the workspace taken over is refused then", async () => {
  expect((await run(first, ["apply", "-f", ".", "--auto-approve"])).code).toBe(0);
  const a = await lineageOf(first);
  expect(Object.values(await markers()).map((m) => m?.lineage)).toEqual([a, a]);

  // The second workspace has a fresh state and a changed description for b001.
  const config = join(second, "tgw.yaml");
  await writeFile(config, (await readFile(config, "utf8")).replace("backend 1", "backend one"));
  server.resetRequests();
  const planned = await run(second, ["plan", "-f", ".", "--detailed-exitcode"]);
  expect(planned.code).toBe(1);
  expect(planned.stderr).toMatch(
    new RegExp(
      `stack "shared": 2 objects carry ownership markers this state \\(lineage [0-9a-f-]{36}, serial 0\\) has not seen: 2 of lineage ${a} .*Objects: tunnel_group_backends.b000 .*--takeover`,
    ),
  );
  // At a terminal too: the plan shows what --takeover would do, then refuses.
  const person = await run(second, ["plan", "-f", "."]);
  expect(person.code).toBe(1);
  const json = JSON.parse((await run(second, ["plan", "-f", ".", "--json", "--takeover"])).stdout);
  expect(json.foreign_lineages.others).toEqual([{ lineage: a, objects: 2, serial: 1 }]);
  const refused = await run(second, ["apply", "-f", ".", "--auto-approve"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`2 of lineage ${a}`);
  expect(server.mutations()).toEqual([]);

  const taken = await run(second, ["apply", "-f", ".", "--auto-approve", "--takeover"]);
  expect(taken.code).toBe(0);
  expect(taken.stderr).toContain("--takeover given: this state takes them over");
  const b = await lineageOf(second);
  expect(b).not.toBe(a);
  // Only the object PATCHed anyway carries the new lineage: no call for the unchanged one.
  expect(server.mutations().map((r) => r.method)).toEqual(["PATCH"]);
  const after = await markers();
  expect([after["backend 0"]?.lineage, after["backend one"]?.lineage]).toEqual([a, b]);
  // The state now records both objects: nothing foreign is left for this workspace.
  expect((await run(second, ["plan", "-f", ".", "--detailed-exitcode"])).code).toBe(0);
  // The first workspace meets the second's claim on the object it PATCHed: refused, nothing guessed.
  server.resetRequests();
  const first2 = await run(first, ["apply", "-f", ".", "--auto-approve"]);
  expect(first2.code).toBe(1);
  expect(first2.stderr).toContain(`1 of lineage ${b}`);
  expect(server.mutations()).toEqual([]);
});
