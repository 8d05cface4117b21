/**
 * API-key tokens where CI and watchers run (docs/ci.md > Tokens), through the CLI: the token command
 * takes a new key's token (no token file on the runner), the state records where each token went, so
 * another checkout sharing the state does not call it lost (nor a token written to another checkout's file); an imported key marked
 * `token_kept_elsewhere` is not lost either; a token written on a CI runner is said to go with it; and
 * no warning advises rotating a key.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { tgw } from "../tgw.js";

let server: TestServer;
let root: string;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tgw-tokens-ci-"));
  return () => rm(root, { recursive: true, force: true });
});

const checkout = async (name: string, yaml: string) => {
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(join(dir, "tgw.yaml"), yaml);
  return dir;
};
const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
  tgw([...args, "-f", "."], {
    cwd: dir,
    server: { url: server.url, token: server.token },
    env: { CI: "true", ...env },
  });
const shareState = async (from: string, to: string) => {
  await mkdir(join(to, ".tgw"), { recursive: true });
  await cp(join(from, ".tgw", "state.json"), join(to, ".tgw", "state.json"));
};

it("the token command takes the token; another checkout sharing the state does not call it lost", async () => {
  const yaml = "stack: ci-tokens\napi_keys:\n  deployer: {description: deploys}\n";
  const first = await checkout("first", yaml);
  const vault = join(root, "vault");
  await mkdir(vault);
  const command = `cat > "${vault}/$TGW_TOKEN_ADDRESS.$TGW_TOKEN_ID"`;
  const applied = await run(first, ["apply", "--auto-approve"], { TGW_TOKEN_COMMAND: command });
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain("api_keys.deployer: token handed to the token command");
  expect(applied.stderr).not.toContain("Warning");
  const [stored] = await readdir(vault);
  expect(stored).toMatch(/^api_keys\.deployer\.ak_/);
  expect(await readFile(join(vault, stored as string), "utf8")).toMatch(/^tgw_\S+\n$/);
  // No token file on the runner, and no token in the state.
  await expect(readdir(join(first, ".tgw", "secrets"))).rejects.toThrow();
  const state = await readFile(join(first, ".tgw", "state.json"), "utf8");
  expect(JSON.parse(state).resources["api_keys.deployer"].tokenDelivered).toEqual({ to: "command" });
  expect(state).not.toContain("tgw_");

  const second = await checkout("second", yaml);
  await shareState(first, second);
  const plan = await run(second, ["plan", "--detailed-exitcode"]);
  expect(plan.code).toBe(0);
  expect(plan.stderr).not.toContain("token");
});

it("where a token went outlives later applies: a change elsewhere in the stack keeps the key's record of it", async () => {
  const yaml = "stack: ci-later\napi_keys:\n  deployer: {description: deploys}\n";
  const dir = await checkout("later", yaml);
  const vault = join(root, "vault-later");
  await mkdir(vault);
  const command = `cat > "${vault}/$TGW_TOKEN_ADDRESS"`;
  expect((await run(dir, ["apply", "--auto-approve"], { TGW_TOKEN_COMMAND: command })).code).toBe(0);
  // The key is a no-op in the next applies: one adds a backend, one changes its reference list.
  await writeFile(join(dir, "tgw.yaml"), `${yaml}tunnel_group_backends:\n  web: {description: web}\n`);
  expect((await run(dir, ["apply", "--auto-approve"])).code).toBe(0);
  await writeFile(join(dir, "tgw.yaml"), yaml);
  expect((await run(dir, ["apply", "--auto-approve"])).code).toBe(0);
  const state = JSON.parse(await readFile(join(dir, ".tgw", "state.json"), "utf8"));
  expect(state.resources["api_keys.deployer"].tokenDelivered).toEqual({ to: "command" });
  const plan = await run(dir, ["plan", "--detailed-exitcode"]);
  expect(plan.code).toBe(0);
  expect(plan.stderr).not.toContain("token");
});

it("a token written to a file in another checkout is not lost here; one written on a CI runner is said to go with it", async () => {
  const yaml = "stack: ci-files\napi_keys:\n  ci: {}\n";
  const first = await checkout("first", yaml);
  const applied = await run(first, ["apply", "--auto-approve"]);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain(
    "a new token was written to files on this CI runner (api_keys.ci), which go with it: set TGW_TOKEN_COMMAND",
  );
  const second = await checkout("second", yaml);
  await shareState(first, second);
  // The state says the token went to a file; this checkout (on the same machine) lacks it: another
  // checkout has it (before sidecars, the host name decided, and this one called it lost).
  const here = await run(second, ["plan"]);
  expect(here.code).toBe(0);
  expect(here.stderr).not.toContain("token");
  // A state written by an older tgw records the machine's name: read, and changes nothing.
  const file = join(second, ".tgw", "state.json");
  const doc = JSON.parse(await readFile(file, "utf8"));
  expect(doc.resources["api_keys.ci"].tokenDelivered.to).toBe("file");
  doc.resources["api_keys.ci"].tokenDelivered.host = "ci-runner-that-is-gone";
  await writeFile(file, JSON.stringify(doc));
  const elsewhere = await run(second, ["plan"]);
  expect(elsewhere.code).toBe(0);
  expect(elsewhere.stderr).not.toContain("token");
});

it("an imported key marked token_kept_elsewhere is never reported lost", async () => {
  const res = await fetch(`${server.url}/api_keys`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${server.token}`,
      "service-version": "2",
      "content-type": "application/json",
    },
    body: JSON.stringify({ description: "made by hand" }),
  });
  const { id } = (await res.json()) as { id: string };
  const dir = await checkout(
    "imported",
    "stack: ci-import\napi_keys:\n  legacy: {description: made by hand}\n",
  );
  expect((await tgw(["import", "api_keys.legacy", id, "-f", "."], { cwd: dir, server })).code).toBe(0);
  const warned = await run(dir, ["plan"]);
  expect(warned.stderr).toContain(`the token of api_keys.legacy (${id}) is not on this machine`);
  await writeFile(
    join(dir, "tgw.yaml"),
    "stack: ci-import\napi_keys:\n  legacy: {description: made by hand, token_kept_elsewhere: true}\n",
  );
  const quiet = await run(dir, ["plan", "--detailed-exitcode"]);
  expect(quiet.code).toBe(0);
  expect(quiet.stderr).not.toContain("token");
});

it("a token file left by a deleted key does not pass for the token of the key adopted at its address", async () => {
  const yaml = "stack: ci-dead-token\napi_keys:\n  a: {description: the key}\n";
  const first = await checkout("first", yaml);
  expect((await run(first, ["apply", "--auto-approve"])).code).toBe(0);
  const { id } = JSON.parse(await readFile(join(first, ".tgw", "state.json"), "utf8")).resources[
    "api_keys.a"
  ];
  expect((await run(first, ["state", "rm", "api_keys.a"])).code).toBe(0);
  const deleted = await fetch(`${server.url}/api_keys/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${server.token}`, "service-version": "2" },
  });
  expect(deleted.status).toBe(204);
  // Another checkout makes the key again; this one adopts it through its marker.
  expect((await run(await checkout("second", yaml), ["apply", "--auto-approve"])).code).toBe(0);
  const plan = await run(first, ["plan", "--takeover"]);
  expect(plan.stderr).toMatch(/the token of api_keys\.a \(ak_\w+\) is not on this machine/);
  expect(plan.stderr).not.toContain(id);
});
