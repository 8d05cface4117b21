/**
 * Token files say whose token they hold (issue 43 §6): a sidecar `<token file>.json` written with each
 * token names the key, the token's digest and the API, so "whose token is this file" is a local read.
 * Through the CLI: a checkout sharing the state without the token file never calls the token lost; a
 * lost state applied against another API sets the first API's token files aside instead of overwriting
 * them; a destroy, or an apply that deletes a key, sets the deleted key's token file aside.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { tgw } from "../tgw.js";

let server: TestServer;
let other: TestServer;
let root: string;
beforeAll(async () => {
  [server, other] = await Promise.all([startTestServer(), startTestServer()]);
});
afterAll(() => Promise.all([server.close(), other.close()]));
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tgw-sidecars-"));
  return () => rm(root, { recursive: true, force: true });
});

const checkout = async (name: string, yaml: string) => {
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(join(dir, "tgw.yaml"), yaml);
  return dir;
};
const run = (dir: string, args: string[], on: TestServer = server) =>
  tgw([...args, "-f", "."], { cwd: dir, server: { url: on.url, token: on.token } });
const secrets = (dir: string) => join(dir, ".tgw", "secrets");
const tokenOf = async (file: string) => (await readFile(file, "utf8")).trim();
const keys = (n: number, stack: string) =>
  `stack: ${stack}\napi_keys:\n${Array.from({ length: n }, (_, i) => `  k${i}: {description: key ${i}}\n`).join("")}`;

it("a checkout sharing the state (one state file) without the token file never calls the token lost", async () => {
  const yaml = "stack: shared\napi_keys:\n  ci: {description: CI}\n";
  const state = join(root, "shared", "state.json");
  const first = await checkout("first", yaml);
  const second = await checkout("second", yaml);
  const applied = await run(first, ["apply", "--auto-approve", "--state", state]);
  expect(applied.code).toBe(0);
  const file = join(secrets(first), "ci.token");
  const token = await tokenOf(file);
  const id = server.keyOf(token);
  // The sidecar: whose token the file holds, never the token.
  const sidecarText = await readFile(`${file}.json`, "utf8");
  expect(sidecarText).not.toContain(token);
  expect((await stat(`${file}.json`)).mode & 0o777).toBe(0o600);
  const sidecar = JSON.parse(sidecarText);
  expect(sidecar).toMatchObject({ key_id: id, address: "api_keys.ci", api: { url: server.url } });
  expect(sidecar.digest).toMatch(/^[0-9a-f]{64}$/);
  expect(sidecar.api.key).toMatch(/^[0-9a-f]{16}$/);
  // The state records no host name (and no token).
  const recorded = await readFile(state, "utf8");
  expect(JSON.parse(recorded).resources["api_keys.ci"].tokenDelivered).toEqual({
    to: "file",
    digest: sidecar.digest,
  });
  expect(recorded).not.toContain(token);
  // The other checkout, on the same machine: its file is missing, and the token is not lost.
  for (let i = 0; i < 2; i++) {
    const plan = await run(second, ["plan", "--detailed-exitcode", "--state", state]);
    expect(plan.code).toBe(0);
    expect(plan.stderr).not.toContain("token");
    expect(plan.stdout).not.toContain("token");
  }
  const again = await run(second, ["apply", "--auto-approve", "--state", state]);
  expect(again.code).toBe(0);
  expect(again.stderr).not.toContain("not on this machine");
  // Nor in the checkout holding it.
  expect((await run(first, ["plan", "--state", state])).stderr).not.toContain("not on this machine");
});

it("a lost state applied against another API sets the first API's token files aside, and says so", async () => {
  const dir = await checkout("moved", keys(4, "moved"));
  expect((await run(dir, ["apply", "--auto-approve"])).code).toBe(0);
  const first = new Map<string, string>();
  for (let i = 0; i < 4; i++) first.set(`k${i}`, await tokenOf(join(secrets(dir), `k${i}.token`)));
  // The state is lost; the next apply goes to another API, which has none of these keys.
  await rm(join(dir, ".tgw", "state.json"));
  await rm(join(dir, ".tgw", "state.json.backup"), { force: true });
  await rm(join(dir, ".tgw", "state.json.journal"), { force: true });
  await rm(join(dir, ".tgw", "state.json.serial"), { force: true });
  const applied = await run(dir, ["apply", "--auto-approve"], other);
  expect(applied.code).toBe(0);
  for (const [name, token] of first) {
    const id = server.keyOf(token) as string;
    expect(id).toBeDefined();
    // The first API's token, whole, with its sidecar, under removed/.
    const aside = join(secrets(dir), "removed", `${name}.${id}.token`);
    expect(await tokenOf(aside)).toBe(token);
    expect(JSON.parse(await readFile(`${aside}.json`, "utf8"))).toMatchObject({ key_id: id });
    expect(applied.stdout).toContain(
      `api_keys.${name}: its token file held the token of key ${id} of the API at ${server.url}`,
    );
    // The new key's token in the token file.
    const now = await tokenOf(join(secrets(dir), `${name}.token`));
    expect(other.keyOf(now)).toBeDefined();
  }
  expect(applied.stderr).not.toContain("not on this machine");

  // Lost again, and TGW_API_URL forgotten: the embedded server's keys do not overwrite them either.
  const second = await tokenOf(join(secrets(dir), "k0.token"));
  await rm(join(dir, ".tgw", "state.json"));
  const embedded = await tgw(["apply", "--auto-approve", "-f", "."], { cwd: dir });
  expect(embedded.code).toBe(0);
  const id = other.keyOf(second) as string;
  expect(embedded.stdout).toContain(
    `api_keys.k0: its token file held the token of key ${id} of the API at ${other.url}`,
  );
  expect(await tokenOf(join(secrets(dir), "removed", `k0.${id}.token`))).toBe(second);
  expect(JSON.parse(await readFile(join(secrets(dir), "k0.token.json"), "utf8")).api).toEqual({
    url: "embedded",
  });
});

it("a destroy, and an apply that deletes a key, set the deleted keys' token files aside", async () => {
  const dir = await checkout("deleted", keys(3, "deleted"));
  expect((await run(dir, ["apply", "--auto-approve"])).code).toBe(0);
  const tokens = new Map<string, string>();
  for (let i = 0; i < 3; i++) tokens.set(`k${i}`, await tokenOf(join(secrets(dir), `k${i}.token`)));
  const idOf = (name: string) => server.keyOf(tokens.get(name) as string) as string;
  const ids = new Map([...tokens.keys()].map((name) => [name, idOf(name)]));

  // k2 leaves the configuration: deleted, and its token file set aside.
  await writeFile(join(dir, "tgw.yaml"), keys(2, "deleted"));
  const applied = await run(dir, ["apply", "--auto-approve"]);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain(
    "api_keys.k2: the key was deleted; its token file, holding its dead token, was moved to",
  );
  expect(await tokenOf(join(secrets(dir), "removed", `k2.${ids.get("k2")}.token`))).toBe(tokens.get("k2"));

  const destroyed = await run(dir, ["destroy", "--auto-approve"]);
  expect(destroyed.code).toBe(0);
  for (const name of ["k0", "k1"]) {
    expect(destroyed.stdout).toContain(`api_keys.${name}: the key was deleted; its token file`);
    expect(await tokenOf(join(secrets(dir), "removed", `${name}.${ids.get(name)}.token`))).toBe(
      tokens.get(name),
    );
  }
  // No token file left beside the configuration.
  expect((await readdir(secrets(dir))).sort()).toEqual(["removed"]);
});
