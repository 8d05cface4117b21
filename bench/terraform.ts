/**
 * Benchmark of terraform-provider-tunnelgw's refresh: `terraform plan` of N resources (default 1,000)
 * with refresh by list (one paginated list per kind, shared by the run) against the same provider in
 * one-GET-per-resource mode (`TGW_TERRAFORM_REFRESH=get`, the way other providers refresh). Runs
 * alternate between the modes; prints requests counted at the server and wall time of each run, the
 * medians and the ratios.
 *
 *   npx tsx bench/terraform.ts [--resources 1000] [--runs 3]
 *
 * Needs `terraform` on the PATH. The objects are made through the API and adopted with `import`
 * blocks by one `terraform apply` (timed and printed, not compared). The reference server runs in this
 * process on loopback, without rate limit: against the production limit (120 requests per minute) the
 * request ratio is what a user waits for.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { ApiClient } from "../src/client/index.js";
import { startTestServer } from "../test/helpers/server.js";
import { APPLY, PLAN, TerraformHome, terraformAvailable } from "../test/terraform/harness.js";
import { median } from "./stats.js";

const KINDS = [
  { kind: "tunnel_group_backend", path: "/backends/tunnel_group", share: 0.4, body: "" },
  { kind: "api_key", path: "/api_keys", share: 0.4, body: "" },
  {
    kind: "ip_restriction",
    path: "/ip_restrictions",
    share: 0.2,
    body: '\n  type = "dashboard"\n  ip_policy_ids = ["ipp_example01"]',
  },
];

const { values } = parseArgs({
  options: { resources: { type: "string", default: "1000" }, runs: { type: "string", default: "3" } },
});
const total = Number(values.resources);
const runs = Number(values.runs);
if (!terraformAvailable()) throw new Error("terraform is not on the PATH");

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const server = await startTestServer();
const home = new TerraformHome(server.url, server.token);
try {
  const api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
  const limit = pLimit(16);
  const blocks: string[] = [
    'terraform {\n  required_providers {\n    tunnelgw = { source = "tunnelgw/tunnelgw" }\n  }\n}',
  ];
  for (const k of KINDS) {
    const n = Math.round(total * k.share);
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        limit(async () => {
          const body: Record<string, unknown> = { description: `${k.kind}-${i}` };
          if (k.kind === "ip_restriction")
            Object.assign(body, { type: "dashboard", ip_policy_ids: ["ipp_example01"] });
          return [`${k.kind}-${i}`, (await api.post<{ id: string }>(k.path, body)).id] as const;
        }),
      ),
    );
    blocks.push(`locals { ${k.kind} = ${JSON.stringify(Object.fromEntries(ids))} }
resource "tunnelgw_${k.kind}" "r" {
  for_each = local.${k.kind}
  description = each.key${k.body}
}
import {
  for_each = local.${k.kind}
  to       = tunnelgw_${k.kind}.r[each.key]
  id       = each.value
}`);
  }
  await api.close();
  const dir = home.workspace("bench");
  writeFileSync(join(dir, "main.tf"), blocks.join("\n"));
  await home.tf(dir, "init", "-input=false", "-no-color");
  let t = Date.now();
  const imported = await home.tf(dir, ...APPLY);
  if (imported.code !== 0) throw new Error(imported.stderr);
  console.log(`setup: ${total} resources imported by one terraform apply in ${seconds(Date.now() - t)}`);

  const results: Record<"list" | "get", { requests: number[]; ms: number[] }> = {
    list: { requests: [], ms: [] },
    get: { requests: [], ms: [] },
  };
  for (let run = 0; run < runs; run++) {
    for (const mode of ["list", "get"] as const) {
      home.env = { TGW_TERRAFORM_REFRESH: mode };
      server.resetRequests();
      t = Date.now();
      const plan = await home.tf(dir, ...PLAN);
      const ms = Date.now() - t;
      if (plan.code !== 0) throw new Error(`plan (${mode}) exited ${plan.code}: ${plan.stderr}`);
      results[mode].requests.push(server.requests.length);
      results[mode].ms.push(ms);
      console.log(`run ${run + 1} ${mode}: ${server.requests.length} requests, ${seconds(ms)}`);
    }
  }
  const list = { requests: median(results.list.requests), ms: median(results.list.ms) };
  const get = { requests: median(results.get.requests), ms: median(results.get.ms) };
  console.log(`\nterraform plan of ${total} resources, medians of ${runs} runs each:`);
  console.log(`  refresh by list:        ${list.requests} requests, ${seconds(list.ms)}`);
  console.log(`  one GET per resource:   ${get.requests} requests, ${seconds(get.ms)}`);
  console.log(
    `  ratio:                  ${(get.requests / list.requests).toFixed(1)}x requests, ${(get.ms / list.ms).toFixed(2)}x time`,
  );
  const atLimit = (n: number) => seconds((n / 120) * 60_000);
  console.log(`  at 120 requests/min:    ${atLimit(list.requests)} vs ${atLimit(get.requests)}`);
} finally {
  home.close();
  await server.close();
}
