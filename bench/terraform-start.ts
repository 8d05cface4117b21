/**
 * Benchmark of terraform-provider-tunnelgw's start (issue 27 §2.4), side by side in one run:
 *
 * - handshake: from starting the installed provider (the bundle and its launcher, as
 *   `tgw terraform install` writes them) to its go-plugin handshake line, against `node -e 0`
 *   (goal: within 2x);
 * - plan: `terraform plan` with no changes of 200 tunnelgw resources (tunnel group backends) against
 *   a plan of 200 built-in `terraform_data` resources (goal: within 3x). Terraform starts the provider
 *   about 3 times per plan.
 *
 *   npx tsx bench/terraform-start.ts [--runs 9] [--resources 200]
 *
 * Runs alternate A and B; prints each median and the ratio. Needs `terraform` on the PATH. The
 * reference server runs in this process, on loopback.
 *
 * The installed provider keeps a V8 code cache of its bundle (src/terraform/launcher.ts), written when
 * Terraform shuts it down; the plans run first, so the handshakes meet it as Terraform's later starts
 * do. Each figure is also measured with `TGW_CODE_CACHE=0` (the first start after an install or an
 * upgrade), in the same loops.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../src/terraform/plugin-server.js";
import { startTestServer } from "../test/helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "../test/terraform/harness.js";
import { median } from "./stats.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "9" }, resources: { type: "string", default: "200" } },
});
const runs = Number(values.runs);
const count = Number(values.resources);
if (!terraformAvailable()) throw new Error("terraform is not on the PATH");

/** Milliseconds from spawning `cmd` to its first stdout line (then it is killed). */
function untilFirstLine(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "ignore"] });
    let seen = false;
    child.stdout.on("data", () => {
      if (seen) return;
      seen = true;
      resolve(performance.now() - t0);
      child.kill();
    });
    child.on("error", reject);
    child.on("close", () => {
      if (!seen) resolve(performance.now() - t0);
    });
  });
}

/** Prints the medians of `a` and `b` and their ratio against `goal`. */
function report(what: string, a: number[], b: number[], names: [string, string], goal: number): void {
  const ma = median(a);
  const mb = median(b);
  console.log(
    `${what}: ${names[0]} ${ma.toFixed(0)} ms, ${names[1]} ${mb.toFixed(0)} ms, ratio ${(ma / mb).toFixed(2)}x (goal <= ${goal}x)`,
  );
}

const server = await startTestServer({ fixtures: false });
const home = new TerraformHome(server.url, server.token);
try {
  // Plans with no changes: tunnelgw resources against terraform_data.
  const header =
    'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}\n';
  const ours = home.workspace("tunnelgw");
  const builtin = home.workspace("builtin");
  const lines = [header];
  const data = [];
  for (let i = 0; i < count; i++) {
    lines.push(`resource "tunnelgw_tunnel_group_backend" "b${i}" {\n  description = "bench ${i}"\n}\n`);
    data.push(`resource "terraform_data" "d${i}" {\n  input = "bench ${i}"\n}\n`);
  }
  writeFileSync(join(ours, "main.tf"), lines.join(""));
  writeFileSync(join(builtin, "main.tf"), data.join(""));
  for (const dir of [ours, builtin]) {
    const init = await home.tf(dir, "init", "-input=false", "-no-color");
    if (init.code !== 0) throw new Error(init.stderr);
    const applied = await home.tf(dir, ...APPLY, "-parallelism=10");
    if (applied.code !== 0) throw new Error(applied.stderr);
  }
  const a: number[] = [];
  const b: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [dir, into, cache] of [
      [ours, a, "1"],
      [builtin, b, "1"],
      [ours, cold, "0"],
    ] as const) {
      home.env = { TGW_CODE_CACHE: cache };
      const t0 = performance.now();
      const plan = await home.tf(dir, ...PLAN);
      if (plan.code !== 0) throw new Error(`plan has changes or failed: ${plan.stdout}${plan.stderr}`);
      into.push(performance.now() - t0);
    }
  }
  report(`terraform plan of ${count} resources, no changes`, a, b, ["tunnelgw", "terraform_data"], 3);
  report(`the same, no code cache`, cold, b, ["tunnelgw", "terraform_data"], 3);

  // Handshake against node -e 0.
  const executable = home.executable;
  const env = {
    ...process.env,
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: "6",
    TGW_CACHE_DIR: home.cacheDir,
  };
  const hand: number[] = [];
  const handCold: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    hand.push(await untilFirstLine(executable, [], env));
    handCold.push(await untilFirstLine(executable, [], { ...env, TGW_CODE_CACHE: "0" }));
    bare.push(await untilFirstLine(process.execPath, ["-e", "console.log(0)"], env));
  }
  report("handshake", hand, bare, ["provider", "node -e 0"], 2);
  report("handshake, no code cache", handCold, bare, ["provider", "node -e 0"], 2);
} finally {
  home.close();
  await server.close();
}
