/**
 * Benchmark of what a plan reads in a big account (issue 30 §2, issue 43): for every kind the
 * configuration knows (its 8 collections and 9 modules), the requests `tgw plan` sends to refresh a
 * stack of one resource of that kind in an account holding 1,000 others of that kind. Goal: at most
 * 2 requests from the second plan after an apply on, where listing a collection kind takes 10 pages
 * (11 once the stack's object is made).
 *
 *   npm run build && npx tsx bench/refresh.ts [--kind K[,K...]] [--count 1000] [--verbose]
 *     [--vs OTHER/bin/tgw.js]
 *
 * Per build and kind, a fresh reference server runs in this process (with examples/fixtures.yaml)
 * and is seeded by HTTP, 8 requests at a time, with `--count` objects no stack manages:
 * - a collection kind: `--count` objects of the kind;
 * - a module of an HTTPS route (saml, oidc, ...): `--count` sibling routes under the stack's edge
 *   (fixture `edghts_example01`), each with the module set;
 * - a module of an edge (mutual_tls, backend): `--count` other edges of the same type, each with the
 *   module set (a module is one per parent: its siblings are other parents' modules).
 * The stack holds exactly one resource: the kind's object, or the module on a fixture route or edge.
 * What it refers to is a fixture (CA, SSH CA, IP policy) or made by the seeding (the event destination
 * of `event_subscription`, the backend of `tls_edge_backend` and `tcp_edge_backend`), written as a
 * literal id, so the stack has no parent of its own to read: the goal is 2 for every kind.
 *
 * The build runs `apply`, `plan`, `apply`, `plan` (both applies with `--auto-approve`, its own cache
 * directory); the server's request log counts each command's requests, and the table says whether
 * the first and the second plan are within the goal. `--verbose` prints each command's requests
 * (method, path, status). With `--vs`, the other build runs the same on its own fresh servers.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { collections, fillPath, getKind, type KindDescriptor, moduleKinds } from "../src/model/index.js";
import { type RunningServer, startServer } from "../src/server/server.js";
import type { RecordedRequest } from "../src/server/types.js";

const TOKEN = "bench-refresh-token-0123456789";
const THIS_BUILD = fileURLToPath(new URL("../bin/tgw.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../examples/fixtures.yaml", import.meta.url));
const GOAL = 2;
/** The fixture edges and route the stack's module is set on (examples/fixtures.yaml). */
const EDGES: Record<string, string> = {
  https_edge: "edghts_example01",
  tls_edge: "edgtls_example01",
  tcp_edge: "edgtcp_example01",
};
const ROUTE = "edghtsrt_example01";
const COMMANDS = [["apply", "--auto-approve"], ["plan"], ["apply", "--auto-approve"], ["plan"]];

const key = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../examples/keys/${name}`, import.meta.url)), "utf8");

/** Ids of objects a kind's bodies refer to, made on the server before seeding (see `prepare`). */
interface Refs {
  destination: string;
  backend: string;
}

/**
 * The body of an object of each kind, for the API (seeding, `i` its number) and the stack (`i` is
 * "one"); a module's is its PUT body, and its configuration under its edge or route.
 */
const BODIES: Record<string, (refs: Refs, i: string) => Record<string, unknown>> = {
  api_key: (_, i) => ({ description: `key ${i}` }),
  ssh_credential: (_, i) => ({ public_key: key("deploy_ed25519.pub"), acl: [`bind:${i}.example.com`] }),
  ssh_host_certificate: (_, i) => ({
    ssh_certificate_authority_id: "sshca_example01",
    public_key: key("deploy_ecdsa.pub"),
    principals: [`${i}.example.com`],
    valid_until: "2030-01-01T00:00:00Z",
  }),
  tunnel_group_backend: (_, i) => ({ labels: { app: `app-${i}` } }),
  tls_certificate: (_, i) => ({
    description: `certificate ${i}`,
    certificate_pem: key("app.example.com.crt.pem"),
    private_key_pem: key("app.example.com.key.pem"),
  }),
  ip_restriction: (_, i) => ({
    description: `restriction ${i}`,
    type: "dashboard",
    ip_policy_ids: ["ipp_example01"],
  }),
  event_destination: (_, i) => ({ format: "json", target: { monitoring_target: { api_key: `k-${i}` } } }),
  event_subscription: (refs, i) => ({
    description: `subscription ${i}`,
    sources: [{ type: "api_key_created.v0" }],
    destination_ids: [refs.destination],
  }),
  saml: () => ({ idp_metadata: key("idp-metadata.xml") }),
  oidc: (_, i) => ({ issuer: "https://id.example.com", client_id: `web-${i}`, client_secret: "s1" }),
  user_agent_filter: () => ({ allow: ["^curl/"] }),
  response_headers: () => ({ add: { "X-Frame-Options": "DENY" } }),
  compression: () => ({ enabled: true }),
  https_edge_mutual_tls: () => ({ certificate_authority_ids: ["ca_example01"] }),
  tls_edge_backend: (refs) => ({ backend_id: refs.backend }),
  tls_edge_mutual_tls: () => ({ certificate_authority_ids: ["ca_example02"] }),
  tcp_edge_backend: (refs) => ({ backend_id: refs.backend }),
};

/** Every kind the configuration knows, collections first; throws if one has no body above. */
function configKinds(): KindDescriptor[] {
  const kinds = [...collections().values(), ...moduleKinds()];
  const missing = kinds.filter((k) => !BODIES[k.kind]).map((k) => k.kind);
  if (missing.length > 0) throw new Error(`bench/refresh.ts has no body for ${missing.join(", ")}`);
  return kinds;
}

/** Sends one API request; resolves with the answer's body, rejects unless 2xx. */
async function call(
  server: RunningServer,
  method: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "service-version": "2" },
    body: JSON.stringify(body),
  });
  if (res.status < 200 || res.status > 299)
    throw new Error(`seeding: ${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Makes the objects `kind`'s bodies refer to (one event destination, one backend), when it needs them. */
async function prepare(server: RunningServer, kind: string): Promise<Refs> {
  const refs: Refs = { destination: "", backend: "" };
  if (kind === "event_subscription")
    refs.destination = String(
      (await call(server, "POST", "/event_destinations", BODIES.event_destination?.({} as Refs, "target")))
        .id,
    );
  if (kind === "tls_edge_backend" || kind === "tcp_edge_backend")
    refs.backend = String(
      (await call(server, "POST", "/backends/tunnel_group", { labels: { app: "target" } })).id,
    );
  return refs;
}

/** The path of `kind`'s module on a new parent: a new route of the stack's edge, or a new edge. */
async function newParentPath(server: RunningServer, kind: KindDescriptor, i: number): Promise<string> {
  const parent = kind.module?.parent ?? "";
  if (parent === "https_edge_route") {
    const edge = EDGES.https_edge ?? "";
    const route = await call(server, "POST", fillPath(getKind(parent).path, { edge_id: edge }), {
      match_type: "path_prefix",
      match: `/seed/${i}`,
    });
    return fillPath(kind.path, { edge_id: edge, route_id: String(route.id) });
  }
  const edge = await call(server, "POST", getKind(parent).path, { hostports: [`seed-${i}.example.com:443`] });
  return fillPath(kind.path, { edge_id: String(edge.id) });
}

/** Seeds `count` objects of `kind` that no stack manages (see the module comment). */
async function seed(server: RunningServer, kind: KindDescriptor, refs: Refs, count: number): Promise<void> {
  const limit = pLimit(8);
  const body = BODIES[kind.kind] ?? (() => ({}));
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      limit(async () => {
        if (kind.module)
          await call(server, "PUT", await newParentPath(server, kind, i), body(refs, String(i)));
        else await call(server, "POST", kind.path, body(refs, String(i)));
      }),
    ),
  );
}

/** The stack's configuration: one resource of `kind`, named `one` (a module on a fixture edge or route). */
function stackConfig(stack: string, kind: KindDescriptor, refs: Refs): Record<string, unknown> {
  const body = BODIES[kind.kind]?.(refs, "one") ?? {};
  if (!kind.module) return { stack, [kind.collection ?? ""]: { one: body } };
  const parent = kind.module.parent;
  const edgeKind = parent === "https_edge_route" ? "https_edge" : parent;
  const onEdge =
    parent === "https_edge_route"
      ? { routes: { [ROUTE]: { [kind.module.configKey]: body } } }
      : { [kind.module.configKey]: body };
  return { stack, edges: { [edgeKind.replace(/_edge$/, "")]: { [EDGES[edgeKind] ?? ""]: onEdge } } };
}

/** Runs `node bin args...` in `cwd` against `url`; rejects unless it exits 0. */
function tgw(bin: string, args: string[], cwd: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, "-f", "."], {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: "1",
        CI: "",
        TGW_API_URL: url,
        TGW_API_KEY: TOKEN,
        TGW_CACHE_DIR: join(cwd, ".cache"),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`tgw ${args.join(" ")} exited ${code}: ${err}`)),
    );
  });
}

/** One build's run on one kind: the requests of each command. */
interface Measured {
  kind: string;
  build: string;
  requests: RecordedRequest[][];
}

/** A fresh server seeded for `kind`, and `bin`'s apply, plan, apply, plan on a stack of one object. */
async function measure(bin: string, build: string, kind: KindDescriptor, count: number): Promise<Measured> {
  const server = await startServer({ bootstrapToken: TOKEN, logger: false, fixtures: FIXTURES });
  const dir = mkdtempSync(join(tmpdir(), "tgw-bench-refresh-"));
  try {
    const refs = await prepare(server, kind.kind);
    await seed(server, kind, refs, count);
    const config = stackConfig(`bench-${kind.kind.replaceAll("_", "-")}`, kind, refs);
    // JSON is YAML: the PEM texts need no quoting of their own.
    writeFileSync(join(dir, "tgw.yaml"), `${JSON.stringify(config, null, 2)}\n`);
    const requests: RecordedRequest[][] = [];
    for (const args of COMMANDS) {
      const before = server.app.recordedRequests.length;
      await tgw(bin, args, dir, server.url);
      requests.push(server.app.recordedRequests.slice(before).map((r) => ({ ...r })));
    }
    return { kind: kind.kind, build, requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
}

/** What is seeded for `kind`, in a few words (the table's second column). */
function othersOf(kind: KindDescriptor, count: number): string {
  const n = count.toLocaleString("en-US");
  const parent = kind.module?.parent;
  if (!parent) return `${n} ${kind.collection}`;
  if (parent === "https_edge_route") return `${n} sibling routes with it`;
  return `${n} ${parent.replace(/_edge$/, "").toUpperCase()} edges with it`;
}

/** The table, one row per kind and build, and with `verbose` each command's requests. */
function report(rows: Measured[], count: number, verbose: boolean): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const within = (n: number | undefined) => ((n ?? Number.POSITIVE_INFINITY) <= GOAL ? "yes" : "**no**");
  out(`requests per command, one resource in an account of ${count.toLocaleString("en-US")} others:`);
  out("");
  out("| kind | others | build | apply | plan | apply again | plan | goal | plan 1 within | plan 2 within |");
  out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const n = row.requests.map((r) => r.length);
    const others = othersOf(getKind(row.kind), count);
    out(
      `| ${row.kind} | ${others} | ${row.build} | ${n.join(" | ")} | <= ${GOAL} (no parent read) | ` +
        `${within(n[1])} | ${within(n[3])} |`,
    );
  }
  if (!verbose) return;
  for (const row of rows) {
    out("");
    out(`${row.kind}, ${row.build}:`);
    row.requests.forEach((requests, i) => {
      out(`  ${(COMMANDS[i] ?? []).join(" ")}: ${requests.length}`);
      for (const r of requests) out(`    ${r.method} ${r.path} ${r.status}`);
    });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kind: { type: "string" },
      count: { type: "string" },
      vs: { type: "string" },
      verbose: { type: "boolean" },
    },
  });
  const count = Number(values.count ?? 1000);
  if (!Number.isInteger(count) || count < 0)
    throw new Error(`--count must be a whole number: ${values.count}`);
  let kinds = configKinds();
  if (values.kind) {
    const wanted = values.kind.split(",");
    const unknown = wanted.filter((k) => !kinds.some((d) => d.kind === k));
    if (unknown.length > 0)
      throw new Error(`--kind ${unknown.join(",")}: not one of ${kinds.map((k) => k.kind).join(", ")}`);
    kinds = kinds.filter((k) => wanted.includes(k.kind));
  }
  const builds: [string, string][] = [[THIS_BUILD, "this build"]];
  if (values.vs) builds.push([values.vs, values.vs]);
  const rows: Measured[] = [];
  for (const kind of kinds)
    for (const [bin, build] of builds) {
      process.stderr.write(`${kind.kind}, ${build}...\n`);
      rows.push(await measure(bin, build, kind, count));
    }
  report(rows, count, values.verbose === true);
}

await main();
