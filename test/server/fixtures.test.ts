/**
 * The fixtures file: examples/fixtures.yaml loads the fixed ids everyone uses; a user may be an admin;
 * mistakes are reported with the file, the line and the entry, and the server does not start.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startServer } from "../../src/server/server.js";
import { startTestServer, TEST_DATA_KEY } from "../helpers/server.js";
import { caller } from "./http.js";

const dir = mkdtempSync(join(tmpdir(), "tgw-fixtures-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test("examples/fixtures.yaml has the fixed ids of the examples", async () => {
  const server = await startTestServer();
  try {
    const call = caller(server.url, server.token);
    const ids = async (path: string, key: string) =>
      (await call("GET", path)).body[key].map((o: { id: string }) => o.id).sort();
    expect(await ids("/edges/https", "https_edges")).toEqual(["edghts_example01"]);
    expect(await ids("/edges/https/edghts_example01/routes", "routes")).toEqual([
      "edghtsrt_example01",
      "edghtsrt_example02",
    ]);
    expect(await ids("/edges/tls", "tls_edges")).toEqual(["edgtls_example01"]);
    expect(await ids("/edges/tcp", "tcp_edges")).toEqual(["edgtcp_example01"]);
    expect(await ids("/certificate_authorities", "certificate_authorities")).toEqual([
      "ca_example01",
      "ca_example02",
    ]);
    expect(await ids("/ssh_certificate_authorities", "ssh_certificate_authorities")).toEqual([
      "sshca_example01",
    ]);
    expect(await ids("/ip_policies", "ip_policies")).toEqual(["ipp_example01", "ipp_example02"]);
    expect(await ids("/reserved_domains", "reserved_domains")).toEqual(["rd_example01"]);
    expect(await ids("/tunnels", "tunnels")).toEqual(["tn_example01"]);
    expect(await ids("/users", "users")).toEqual(["usr_admin", "usr_example01"]);
    expect(await ids("/bots", "bots")).toEqual(["bot_example01"]);
    const route = await call("GET", "/edges/https/edghts_example01/routes/edghtsrt_example02");
    expect(route.body).toMatchObject({
      match_type: "path_prefix",
      match: "/api",
      edge_id: "edghts_example01",
    });
    const tunnel = await call("GET", "/tunnels/tn_example01");
    expect(tunnel.body).toMatchObject({
      labels: { env: "prod", app: "web" },
      public_url: "https://app.example.com",
      proto: "https",
    });
    expect((await call("GET", "/edges/tcp/edgtcp_example01")).body.hostports).toEqual([
      "1.tcp.example.com:20001",
    ]);
  } finally {
    await server.close();
  }
});

test("a fixture user with admin: true owns the bootstrap key, and its keys are admin", async () => {
  const fixtures = file("admin.yaml", "users:\n  - id: usr_boss\n    admin: true\n  - id: usr_staff\n");
  const server = await startTestServer({ fixtures });
  try {
    const call = caller(server.url, server.token);
    const bossKey = await call("POST", "/api_keys", {});
    expect(bossKey.body.owner_id).toBe("usr_boss");
    const staffKey = await call("POST", "/api_keys", { owner_id: "usr_staff" });
    expect((await caller(server.url, bossKey.body.token)("GET", "/debug/requests")).status).toBe(200);
    expect((await caller(server.url, staffKey.body.token)("GET", "/debug/requests")).status).toBe(403);
    // The bootstrap owner cannot be deleted.
    expect((await call("DELETE", "/users/usr_boss")).status).toBe(409);
    expect((await call("DELETE", "/users/usr_staff")).status).toBe(409); // owns a key
  } finally {
    await server.close();
  }
});

test("a mistake anywhere in the file writes nothing", async () => {
  const dataPath = join(dir, "half.db");
  const bad = file(
    "half.yaml",
    "ip_policies:\n  - id: ipp_good\ntunnels:\n  - id: tn_good\n  - id: tn_bad\n    proto: carrier-pigeon\n",
  );
  await expect(startServer({ dataPath, dataKey: TEST_DATA_KEY, fixtures: bad })).rejects.toThrow(
    /half\.yaml:5: tunnels\[1\]: proto must be one of/,
  );
  const server = await startServer({ dataPath, dataKey: TEST_DATA_KEY, bootstrapToken: "t" });
  try {
    const call = caller(server.url, "t");
    expect((await call("GET", "/ip_policies")).body.ip_policies).toEqual([]);
    expect((await call("GET", "/tunnels")).body.tunnels).toEqual([]);
  } finally {
    await server.close();
  }
});

describe("mistakes name the file, line and entry", () => {
  const cases: [string, string, RegExp][] = [
    ["unknown section", "ip_policies: []\nedges: []\n", /bad\.yaml:2: unknown section "edges"/],
    [
      "wrong id prefix",
      "ip_policies:\n  - id: ipp_ok\n  - id: ca_wrong\n",
      /bad\.yaml:3: ip_policies\[1\]: id must be ipp_/,
    ],
    [
      "unknown field",
      "tunnels:\n  - id: tn_1\n    lables: {a: b}\n",
      /bad\.yaml:2: tunnels\[0\]: unknown field "lables"/,
    ],
    [
      "bad value",
      "https_edges:\n  - id: edghts_1\n    hostports: [nope]\n",
      /bad\.yaml:2: https_edges\[0\]: hostports\[0\] must be/,
    ],
    [
      "bad route",
      "https_edges:\n  - id: edghts_1\n    routes:\n      - id: edghtsrt_1\n        match_type: regex\n        match: /\n",
      /bad\.yaml:4: https_edges\[0\]\.routes\[0\]: match_type must be one of exact_path, path_prefix/,
    ],
    [
      "missing PEM file",
      "certificate_authorities:\n  - id: ca_1\n    ca_pem_file: nowhere.pem\n",
      /bad\.yaml:2: certificate_authorities\[0\]: ca_pem_file: ENOENT/,
    ],
    [
      "invalid PEM",
      "certificate_authorities:\n  - id: ca_1\n    ca_pem: hello\n",
      /bad\.yaml:2: certificate_authorities\[0\]: ca_pem contains no PEM block/,
    ],
    [
      "bad account flag",
      "account:\n  abuse_reports: yes please\n",
      /bad\.yaml:2: account\.abuse_reports must be true or false/,
    ],
    ["not YAML", "tunnels: [\n", /bad\.yaml:\d+: not valid YAML/],
    [
      "duplicate id",
      "ip_policies:\n  - id: ipp_1\n  - id: ipp_1\n",
      /bad\.yaml:3: ip_policies\[1\]: id ipp_1 is used twice/,
    ],
  ];
  for (const [name, text, expected] of cases) {
    test(name, async () => {
      const path = file("bad.yaml", text);
      await expect(startServer({ fixtures: path })).rejects.toThrow(expected);
    });
  }
});
