/**
 * Issue 27, defect 4: no orphans after a lost answer or a killed `terraform apply`. An orphan is a
 * live object no Terraform state records. Under injected faults (answers lost after the server made
 * the object, 5xx, dropped connections) a configuration of 30 resources converges with none, and
 * `terraform destroy` leaves nothing; after a SIGKILL of `terraform apply` mid-apply the provider
 * process exits by itself, the next apply adopts what the killed one created, an object whose state
 * record is removed is adopted by the next create (an API key made again), and destroy leaves nothing.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { APPLY, TerraformHome, terraformAvailable } from "./harness.js";

const available = terraformAvailable();

/** The list paths and keys of the kinds the configuration makes. */
const KINDS = [
  ["/backends/tunnel_group", "backends"],
  ["/api_keys", "keys"],
  ["/ip_restrictions", "ip_restrictions"],
] as const;

/** 30 resources, each with its own arguments: 14 backends, 8 API keys, 8 IP restrictions. */
const CONFIG = `terraform {
  required_providers {
    tunnelgw = { source = "tunnelgw/tunnelgw" }
  }
}
resource "tunnelgw_tunnel_group_backend" "b" {
  count       = 14
  description = "backend \${count.index}"
  labels      = { n = "\${count.index}" }
}
resource "tunnelgw_api_key" "k" {
  count       = 8
  description = "key \${count.index}"
}
resource "tunnelgw_ip_restriction" "r" {
  count         = 8
  type          = "dashboard"
  ip_policy_ids = ["ipp_example01"]
  metadata      = jsonencode({ n = count.index })
}
`;

interface Live {
  total: number;
  orphans: string[];
}

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (ppid) follows the command name in parentheses, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!available)("terraform: no orphans after lost answers or a kill (issue 27)", () => {
  const servers: TestServer[] = [];
  const homes: TerraformHome[] = [];
  const clients: ApiClient[] = [];
  const started: number[] = [];

  afterAll(async () => {
    // Providers that outlived a killed terraform (the defect this tests): only the ids it started.
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
    for (const c of clients) await c.close();
    for (const h of homes) h.close();
    for (const s of servers) await s.close();
  });

  async function setUp(name: string, faults?: string) {
    const server = await startTestServer(faults === undefined ? {} : { faults });
    servers.push(server);
    const home = new TerraformHome(server.url, server.token);
    homes.push(home);
    // The test's own reads retry the injected faults long enough.
    const api = new ApiClient({ baseUrl: server.url, apiKey: server.token, retry: { retries: 12 } });
    clients.push(api);
    const dir = home.workspace(name);
    writeFileSync(join(dir, "main.tf"), CONFIG);
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
    return { server, home, api, dir };
  }

  /** Ids the state records (none when there is no state file). */
  function stateIds(dir: string): Set<string> {
    let text: string;
    try {
      text = readFileSync(join(dir, "terraform.tfstate"), "utf8");
    } catch {
      return new Set();
    }
    // A terraform killed while writing its state leaves it empty.
    if (text.trim() === "") return new Set();
    const doc = JSON.parse(text) as { resources: { instances: { attributes: { id: string } }[] }[] };
    return new Set(doc.resources.flatMap((r) => r.instances.map((i) => i.attributes.id)));
  }

  async function live(api: ApiClient, dir: string): Promise<Live> {
    const ids = stateIds(dir);
    const all: string[] = [];
    for (const [path, key] of KINDS) {
      const items = await api.listAll<{ id: string }>(path, key, { limit: 100 });
      all.push(...items.map((i) => i.id));
    }
    return { total: all.length, orphans: all.filter((id) => !ids.has(id)) };
  }

  /** Runs `args` until it succeeds (at most `max` times): the number of runs. */
  async function untilDone(home: TerraformHome, dir: string, args: string[], max: number): Promise<number> {
    for (let run = 1; run <= max; run++) {
      const result = await home.tf(dir, ...args);
      if (result.code === 0) return run;
    }
    throw new Error(`${args[0]} did not succeed in ${max} runs`);
  }

  it("converges under 25 % injected faults with no orphan, and destroy leaves nothing", async () => {
    const { home, api, dir } = await setUp("faults", "500=0.05,503=0.05,drop=0.05,lost=0.1,seed=27");
    const applies = await untilDone(home, dir, APPLY, 6);
    const after = await live(api, dir);
    console.log(`faults: ${applies} applies, ${after.total} objects, ${after.orphans.length} orphans`);
    expect(stateIds(dir).size).toBe(30);
    expect(after.orphans).toEqual([]);
    expect(after.total).toBe(30);
    await untilDone(home, dir, ["destroy", "-auto-approve", "-input=false", "-no-color"], 4);
    expect((await live(api, dir)).total).toBe(0);
  }, 150_000);

  it("after a SIGKILL mid-apply the provider exits, the next apply adopts what was made, destroy leaves nothing", async () => {
    const { server, home, api, dir } = await setUp("kill");
    server.resetRequests();
    const child = home.spawn(dir, ...APPLY, "-parallelism=1");
    const pid = child.pid as number;
    const creates = () => server.requests.filter((r) => r.method === "POST").length;
    const deadline = Date.now() + 30_000;
    let providers: number[] = [];
    while (creates() < 4 && Date.now() < deadline) {
      providers = childrenOf(pid);
      await sleep(5);
    }
    providers = [...new Set([...providers, ...childrenOf(pid)])];
    started.push(...providers);
    expect(creates()).toBeGreaterThanOrEqual(4);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
    const made = creates();
    expect(made).toBeLessThan(30);
    expect(providers.length).toBeGreaterThan(0);
    // The provider notices that Terraform is gone and exits.
    const gone = Date.now() + 5_000;
    while (providers.some(alive) && Date.now() < gone) await sleep(100);
    expect(providers.filter(alive)).toEqual([]);

    const killed = await live(api, dir);
    console.log(`kill: ${made} creates before the kill, ${killed.orphans.length} objects without state`);
    const apply = await home.tf(dir, ...APPLY);
    expect(apply.code, apply.stderr).toBe(0);
    const after = await live(api, dir);
    console.log(`kill: after the next apply ${after.total} objects, ${after.orphans.length} orphans`);
    expect(after.orphans).toEqual([]);
    expect(after.total).toBe(30);

    // Whatever the kill left, an object the state forgets is adopted by the next create: a backend
    // without a POST, an API key made again (its token was only in the create answer).
    const before = stateIds(dir);
    for (const address of ["tunnelgw_tunnel_group_backend.b[3]", "tunnelgw_api_key.k[2]"]) {
      const rm = await home.tf(dir, "state", "rm", "-no-color", address);
      expect(rm.code, rm.stderr).toBe(0);
    }
    expect((await live(api, dir)).orphans).toHaveLength(2);
    server.resetRequests();
    const adopt = await home.tf(dir, ...APPLY);
    expect(adopt.code, adopt.stderr).toBe(0);
    expect(
      server
        .mutations()
        .map((r) => `${r.method} ${r.path.replace(/\/ak_\w+$/, "/:id")}`)
        .sort(),
    ).toEqual(["DELETE /api_keys/:id", "POST /api_keys"]);
    const adopted = await live(api, dir);
    expect(adopted.orphans).toEqual([]);
    expect(adopted.total).toBe(30);
    expect([...before].filter((id) => !stateIds(dir).has(id))).toEqual([
      [...before].find((id) => id.startsWith("ak_") && !stateIds(dir).has(id)),
    ]);

    const destroy = await home.tf(dir, "destroy", "-auto-approve", "-input=false", "-no-color");
    expect(destroy.code, destroy.stderr).toBe(0);
    expect((await live(api, dir)).total).toBe(0);
  }, 120_000);
});
