/**
 * The benchmarks' configuration of N managed objects covering every kind a configuration can hold,
 * modules included, written as a user would write it: YAML files of at most 500 objects each, PEMs and
 * SSH keys read through `${file:}`, subscriptions referencing destinations through `${ref:}`, plus the
 * server fixtures (edges, routes, CAs, the SSH CA, IP policies) those objects point at.
 *
 * The mix, per 40 objects: 8 tunnel group backends, 6 API keys (each with a token file), 4 SSH
 * credentials, 2 SSH host certificates, 3 IP restrictions, 4 event destinations, 4 event
 * subscriptions, 3 TLS certificates, 5 extra API keys without a token file, and 1 module (on HTTPS
 * edges: mutual TLS, then compression, response headers and OIDC on a route). Modules are refreshed
 * with one GET each (docs/api.md has no list of modules), so they are the costly part of a refresh.
 *
 * TLS certificates (each with its own CA-signed leaf and private key) and SSH public keys come from a
 * pool of `POOL` distinct ones reused round-robin, as wildcard certificates and shared deploy keys are
 * in practice; every one is parsed and checked by `tgw` like any other.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSshKeyPair, createTestCertificate } from "../src/crypto/testing.js";

const KEYS = fileURLToPath(new URL("../examples/keys", import.meta.url));
const PER_FILE = 500;
/** Distinct TLS certificates and SSH keys in a workload. */
export const POOL = 25;
const pool = (i: number) => String(i % POOL).padStart(2, "0");

type Maker = (name: string, i: number) => Record<string, unknown>;

const makers: [collection: string, share: number, make: Maker][] = [
  [
    "tunnel_group_backends",
    8,
    (_n, i) => ({ description: `backend ${i}`, labels: { n: String(i), env: "bench" } }),
  ],
  [
    "api_keys",
    6,
    (n, i) => ({
      description: `key ${i}`,
      metadata: { team: "bench", n: i },
      token_file: `tokens/${n}.token`,
    }),
  ],
  [
    "ssh_credentials",
    4,
    (_n, i) => ({
      description: `ssh ${i}`,
      public_key: `\${file:pool/ssh${pool(i)}.pub}`,
      acl: [`bind:h${i}.example.com`],
    }),
  ],
  [
    "ssh_host_certificates",
    2,
    (_n, i) => ({
      description: `host cert ${i}`,
      ssh_certificate_authority_id: "sshca_example01",
      public_key: `\${file:pool/ssh${pool(i + 7)}.pub}`,
      principals: [`h${i}.example.com`],
      valid_after: "2026-01-01T00:00:00Z",
      valid_until: "2030-01-01T00:00:00Z",
    }),
  ],
  [
    "ip_restrictions",
    3,
    (_n, i) => ({
      description: `restriction ${i}`,
      type: "dashboard",
      enforced: false,
      ip_policy_ids: ["ipp_example01"],
    }),
  ],
  [
    "event_destinations",
    4,
    (_n, i) => ({
      description: `destination ${i}`,
      format: "json",
      target: {
        stream_target: {
          stream_arn: `arn:aws:kinesis:us-east-1:123456789012:stream/s${i}`,
          auth: { role: { role_arn: "arn:aws:iam::123456789012:role/tgw" } },
        },
      },
    }),
  ],
  [
    "event_subscriptions",
    4,
    (_n, i) => ({
      description: `subscription ${i}`,
      sources: [{ type: "api_key_created.v0" }],
      destination_ids: [`\${ref:event_destinations.${objectName(DESTINATIONS, i)}}`],
    }),
  ],
  [
    "tls_certificates",
    3,
    (_n, i) => ({
      description: `cert ${i}`,
      certificate_pem: `\${file:pool/tls${pool(i)}.crt.pem}`,
      private_key_pem: `\${file:pool/tls${pool(i)}.key.pem}`,
    }),
  ],
  ["api_keys", 5, (_n, i) => ({ description: `plain key ${i}`, metadata: `v${i}` })],
];
const MODULE_SHARE = 1;
const DESTINATIONS = 5; // the index of event_destinations in makers

/** The name of the i-th object of makers[m]. */
const objectName = (m: number, i: number) => `o${m}_${String(i).padStart(6, "0")}`;
const UNIT = makers.reduce((s, [, share]) => s + share, 0) + MODULE_SHARE; // 40

/** What `writeWorkload` wrote: counts by collection, and the module count. */
export interface Workload {
  dir: string;
  fixtures: string;
  resources: number;
  modules: number;
  byCollection: Record<string, number>;
}

/**
 * Writes the configuration of `n` objects (n >= 40, rounded down to a multiple of 40) into `dir`
 * (`*.yaml`, `keys/`, `tokens/`) and the server fixtures into `dir/fixtures/fixtures.yaml`.
 */
export async function writeWorkload(dir: string, n: number): Promise<Workload> {
  const units = Math.max(1, Math.floor(n / UNIT));
  mkdirSync(join(dir, "tokens"), { recursive: true });
  cpSync(KEYS, join(dir, "keys"), { recursive: true });
  await writePool(join(dir, "pool"));
  const byCollection: Record<string, number> = {};
  const files: string[] = [`stack: bench\nownership: marker\n`];
  let body = "";
  let inFile = 0;
  const flush = () => {
    if (body) files.push(body);
    body = "";
    inFile = 0;
  };
  for (const [m, [collection, share, make]] of makers.entries()) {
    const count = units * share;
    for (let i = 0; i < count; i++) {
      if (inFile === 0) body += `${collection}:\n`;
      const name = objectName(m, i);
      body += `  ${name}:\n${yamlFields(make(`${collection}.${name}`, i), 4)}`;
      byCollection[collection] = (byCollection[collection] ?? 0) + 1;
      if (++inFile === PER_FILE) flush();
    }
    flush();
  }
  // Modules: 4 per HTTPS edge (mutual TLS on the edge; compression, response headers, OIDC on its route).
  const moduleCount = units * MODULE_SHARE;
  const edges = Math.ceil(moduleCount / 4);
  let modules = 0;
  body = "edges:\n  https:\n";
  for (let e = 0; e < edges; e++) {
    const id = `edghts_bench${String(e).padStart(5, "0")}`;
    const route = `edghtsrt_bench${String(e).padStart(5, "0")}`;
    const mods: string[] = [];
    const want = Math.min(4, moduleCount - modules);
    if (want >= 1)
      mods.push(`    ${id}:\n      mutual_tls:\n        certificate_authority_ids: [ca_example01]\n`);
    const routeMods = [
      "          compression: {}\n",
      '          response_headers:\n            add: { X-Bench: "1" }\n',
      `          oidc:\n            issuer: https://accounts.example.com\n            client_id: c${e}\n            client_secret: example-not-a-secret\n`,
    ].slice(0, want - 1);
    if (routeMods.length) mods.push(`      routes:\n        ${route}:\n${routeMods.join("")}`);
    body += mods.join("");
    modules += want;
  }
  files.push(body);
  files.forEach((text, i) => {
    writeFileSync(join(dir, `c${String(i).padStart(3, "0")}.yaml`), text);
  });
  const fixtures = join(dir, "fixtures", "fixtures.yaml");
  mkdirSync(join(dir, "fixtures"), { recursive: true });
  writeFileSync(fixtures, fixtureText(edges));
  const resources = Object.values(byCollection).reduce((a, b) => a + b, 0);
  return { dir, fixtures, resources, modules, byCollection };
}

function yamlFields(fields: Record<string, unknown>, indent: number): string {
  const pad = " ".repeat(indent);
  return Object.entries(fields)
    .map(([k, v]) => `${pad}${k}: ${JSON.stringify(v)}\n`)
    .join("");
}

function fixtureText(edges: number): string {
  const lines = [
    "ssh_certificate_authorities:\n  - id: sshca_example01\n    description: bench SSH CA\n",
    "ip_policies:\n  - id: ipp_example01\n    description: office\n",
    `certificate_authorities:\n  - id: ca_example01\n    description: bench CA\n    ca_pem_file: ${join(KEYS, "ca.pem")}\n`,
    "https_edges:\n",
  ];
  for (let e = 0; e < edges; e++) {
    const n = String(e).padStart(5, "0");
    lines.push(
      `  - id: edghts_bench${n}\n    hostports: ["e${n}.example.com:443"]\n    routes:\n      - id: edghtsrt_bench${n}\n        match_type: path_prefix\n        match: /\n`,
    );
  }
  return lines.join("");
}

async function writePool(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < POOL; i++) {
    const p = pool(i);
    const cert = await createTestCertificate({
      commonName: `*.w${p}.example.com`,
      dnsNames: [`*.w${p}.example.com`],
    });
    writeFileSync(join(dir, `tls${p}.crt.pem`), cert.certificatePem + cert.caPem);
    writeFileSync(join(dir, `tls${p}.key.pem`), cert.privateKeyPem, { mode: 0o600 });
    writeFileSync(join(dir, `ssh${p}.pub`), `${createSshKeyPair(i % 2 ? "ecdsa" : "ed25519").publicKey}\n`);
  }
}
