/**
 * A frozen holder of a state file's lock (issue 43 §8): `tgw apply` creating 200 API keys is stopped
 * with SIGSTOP (a suspended laptop or VM); a second apply takes the lock over once it is stale and
 * completes; the first, woken with SIGCONT, sends no further API write and no state write, and stops
 * with `state_lock_lost`. Afterwards no key is duplicated and every token file holds its key's live
 * token. The real CLI in its own processes, against a reference server; the lock's stale time is
 * shortened with TGW_LOCK_LEASE.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../../src/client/index.js";
import { FileStateStore } from "../../../src/state/index.js";
import { API_KEYS, liveIds } from "../../helpers/live.js";
import { startTestServer, type TestServer } from "../../helpers/server.js";
import { spawnTgw, tgw } from "../tgw.js";

let server: TestServer;
let api: ApiClient;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
});
afterAll(async () => {
  await api.close();
  await server.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const N = 200;
const STACK = "frozen";
const name = (i: number) => `k${String(i).padStart(3, "0")}`;

/** Ids of the live API keys carrying this stack's marker, by the marker's address. */
const liveKeys = () => liveIds(api, STACK, { lists: [API_KEYS] });

it("an apply frozen while its lock is taken over stops with state_lock_lost once woken: no duplicate key, no dead token", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tgw-frozen-"));
  dirs.push(dir);
  const keys = Array.from({ length: N }, (_, i) => `  ${name(i)}: {description: key ${i}}`);
  await writeFile(join(dir, "tgw.yaml"), `stack: ${STACK}\napi_keys:\n${keys.join("\n")}\n`);
  // A stale time of 5 s for both runs (the default is 10 s).
  const env = { TGW_LOCK_LEASE: "5s" };
  const target = { url: server.url, token: server.token };

  // The first apply, slowed by a rate limit so that it is still creating when it is stopped.
  const first = spawnTgw(["apply", "-f", ".", "--auto-approve"], {
    cwd: dir,
    server: target,
    env: { ...env, TGW_RATE_LIMIT: "40/1s" },
  });
  let stdout = "";
  let stderr = "";
  let stopped = false;
  first.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => first.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    first.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
      // Stopped once it wrote the state (whose lineage its markers carry) and created some keys.
      const created = (stdout.match(/: created /g) ?? []).length;
      if (!stopped && created >= 10 && existsSync(join(dir, ".tgw", "state.json"))) {
        stopped = true;
        first.kill("SIGSTOP");
        resolve();
      }
    });
    first.on("close", () =>
      reject(new Error(`the first apply ended before it was stopped:\n${stdout}${stderr}`)),
    );
  });

  try {
    // The second apply waits for the stopped one's lock to go stale, takes it over and completes.
    const second = await tgw(["apply", "-f", ".", "--auto-approve", "--lock-timeout", "60s"], {
      cwd: dir,
      server: target,
      env,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(
      /took over the lock of state .*state\.json from tgw apply .*: it had not refreshed/,
    );
    const afterSecond = await liveKeys();
    expect(afterSecond.size).toBe(N);
    server.resetRequests();
  } finally {
    first.kill("SIGCONT");
  }

  // Woken, the first writes nothing more, to the API or the state, and says why.
  expect(await exited).toBe(1);
  expect(stderr).toMatch(
    /Error \[state_lock_lost\]: the state lock of .*state\.json was lost while this run held it \(/,
  );
  expect(server.mutations()).toEqual([]);

  // One key per address, each recorded in the state, and each token file holding its key's live token.
  const live = await liveKeys();
  expect(live.size).toBe(N);
  expect([...live.entries()].filter(([, ids]) => ids.length !== 1)).toEqual([]);
  const state = await new FileStateStore(join(dir, ".tgw", "state.json"), { stack: STACK }).read();
  const dead: string[] = [];
  for (let i = 0; i < N; i++) {
    const address = `api_keys.${name(i)}`;
    const id = live.get(address)?.[0];
    expect(state.resources[address]?.id).toBe(id);
    const token = await readFile(join(dir, ".tgw", "secrets", `${name(i)}.token`), "utf8").catch(() => "");
    if (token !== "" && server.keyOf(token.trim()) !== id) dead.push(address);
  }
  expect(dead).toEqual([]);
  const plan = await tgw(["plan", "-f", ".", "--detailed-exitcode"], { cwd: dir, server: target, env });
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
}, 180_000);
