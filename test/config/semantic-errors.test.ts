/**
 * Mistakes beyond the schema: interpolation (environment, files), references, literal ids, merging of
 * several files, and the named rules. Each is reported at its file:line:col with the field path.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getKind } from "../../src/model/index.js";
import type { Entry } from "../../src/model/validation/entry.js";
import { ProblemList } from "../../src/model/validation/problems.js";
import { referenceCycles } from "../../src/model/validation/rules/cycles.js";
import { KEYS, problems, yaml } from "./helpers.js";

const ed25519 = readFileSync(`${KEYS}deploy_ed25519.pub`, "utf8").trim();

describe("interpolation", () => {
  it("names an unset environment variable and never prints any value", async () => {
    const out = await problems(
      {
        "a.yaml": yaml(
          "edges:",
          "  https:",
          "    edghts_1:",
          "      routes:",
          "        edghtsrt_1:",
          "          oidc:",
          "            issuer: ${env:OIDC_ISSUER}",
          "            client_id: web",
          "            client_secret: ${env:OIDC_SECRET}",
        ),
      },
      { env: { OIDC_ISSUER: "not a url s3cr3t-value", TGW_ALLOW_ENV: "OIDC_*" } },
    );
    expect(out).toEqual([
      "a.yaml:7:21: edges.https.edghts_1.routes.edghtsrt_1.oidc.issuer: must be an absolute URI, e.g. https://idp.example.com (value from the environment not shown)",
      "a.yaml:9:28: edges.https.edghts_1.routes.edghtsrt_1.oidc.client_secret: environment variable OIDC_SECRET is not set",
    ]);
    expect(out.join("\n")).not.toContain("s3cr3t");
  });

  it("never prints a value from the environment, whatever is wrong with it", async () => {
    const secret = "Zq9-s3cr3t value {x}";
    const out = await problems(
      {
        "a.yaml": yaml(
          "ip_restrictions:",
          "  office: {type: '${env:S}', ip_policy_ids: ['${env:S}'], description: '${env:S}${env:S}'}",
          "tls_certificates:",
          "  app: {certificate_pem: '${env:S}', private_key_pem: '${env:S}'}",
          "ssh_credentials:",
          "  k: {public_key: '${env:S}', acl: ['${env:S}'], owner_id: '${env:S}'}",
          "edges:",
          "  https:",
          "    edghts_1:",
          "      routes:",
          "        edghtsrt_1:",
          "          saml: {idp_metadata: x, nameid_format: '${env:S}'}",
          "          response_headers: {add: {X-A: '${env:S}'}, remove: ['${env:S}']}",
        ),
      },
      { env: { S: secret, TGW_ALLOW_ENV: "S" } },
    );
    expect(out.length).toBeGreaterThanOrEqual(9);
    for (const line of out) expect(line).not.toMatch(/s3cr3t|Zq9/);
  });

  it("reports a missing file, relative to the YAML file that names it", async () => {
    expect(
      await problems(
        {
          "conf/a.yaml": yaml("ssh_credentials:", "  deploy:", "    public_key: ${file:keys/deploy.pub}"),
        },
        { paths: ["conf"] },
      ),
    ).toEqual([
      "conf/a.yaml:3:17: ssh_credentials.deploy.public_key: cannot read ${file:keys/deploy.pub}: no such file (conf/keys/deploy.pub)",
    ]);
  });

  it("reports malformed interpolations, and keeps $${ as a literal ${", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "api_keys:",
          "  one: {description: 'cost: $${price} and $5'}",
          "  two: {description: '${env:UNCLOSED'}",
          "  three: {description: '${vault:x}'}",
          "  four: {description: 'id ${ref:api_keys.one}'}",
          "  five: {description: '${env:1BAD}'}",
        ),
      }),
    ).toEqual([
      "a.yaml:3:22: api_keys.two.description: unterminated ${: expected ${env:NAME}, ${file:PATH} or ${ref:COLLECTION.NAME} (write $${ for a literal ${)",
      "a.yaml:4:24: api_keys.three.description: unknown interpolation ${vault:...}: expected ${env:NAME}, ${file:PATH} or ${ref:COLLECTION.NAME} (write $${ for a literal ${)",
      "a.yaml:5:23: api_keys.four.description: a ${ref:...} must be the whole value, not part of a string",
      "a.yaml:6:23: api_keys.five.description: ${env:NAME} needs a variable name of letters, digits and _",
    ]);
  });
});

describe("references", () => {
  it("reports unknown targets, wrong collections and refs in fields that hold no id", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "tunnel_group_backends:",
          "  web: {labels: {app: web}}",
          "event_destinations:",
          "  audit: {format: json, target: {monitoring_target: {api_key: k}}}",
          "event_subscriptions:",
          "  all:",
          "    description: ${ref:tunnel_group_backends.web}",
          "    sources: [{type: api_key_created.v0}]",
          "    destination_ids:",
          "      - ${ref:event_destinations.audit}",
          "      - ${ref:event_destinations.audti}",
          "      - ${ref:tunnel_group_backends.web}",
          "      - ${ref:event_destination.audit}",
          "ip_restrictions:",
          "  office: {type: api, ip_policy_ids: ['${ref:tunnel_group_backends.web}']}",
        ),
      }),
    ).toEqual([
      "a.yaml:7:18: event_subscriptions.all.description: ${ref:...} is only allowed in fields that hold an id (here: destination_ids)",
      "a.yaml:11:9: event_subscriptions.all.destination_ids[1]: ${ref:event_destinations.audti}: no event destination named audti in the configuration (did you mean event_destinations.audit?)",
      "a.yaml:12:9: event_subscriptions.all.destination_ids[2]: ${ref:tunnel_group_backends.web}: this field holds event destination ids (ed_...), not tunnel group backend ids; refer to event_destinations.<name>",
      "a.yaml:13:9: event_subscriptions.all.destination_ids[3]: ${ref:event_destination.audit}: unknown collection event_destination (did you mean event_destinations?)",
      "a.yaml:15:39: ip_restrictions.office.ip_policy_ids[0]: ${ref:tunnel_group_backends.web}: this field holds IP policy ids (ipp_...), not tunnel group backend ids; tgw does not manage those, so write the id itself",
    ]);
  });

  it("checks the prefix of literal ids and names the expected kind", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "edges:",
          "  tls:",
          "    edgtls_1:",
          "      backend: {backend_id: ipp_123}",
          "      mutual_tls: {certificate_authority_ids: [ca_1, 'ca_']}",
          "ssh_host_certificates:",
          "  host:",
          "    ssh_certificate_authority_id: sshcr_1",
          `    public_key: ${ed25519}`,
          "api_keys:",
          "  ci: {owner_id: ak_123}",
        ),
      }),
    ).toEqual([
      "a.yaml:4:29: edges.tls.edgtls_1.backend.backend_id: is an IP policy id (ipp_...), but this field takes a tunnel group backend id (bkdtg_...), or ${ref:tunnel_group_backends.<name>}",
      "a.yaml:5:54: edges.tls.edgtls_1.mutual_tls.certificate_authority_ids[1]: is not a valid certificate authority id: expected ca_ followed by letters and digits",
      "a.yaml:8:35: ssh_host_certificates.host.ssh_certificate_authority_id: is an SSH credential id (sshcr_...), but this field takes an SSH certificate authority id (sshca_...)",
      "a.yaml:11:18: api_keys.ci.owner_id: is an API key id (ak_...), but this field takes a user id (usr_...) or a bot id (bot_...)",
    ]);
  });

  it("finds reference cycles (no kinds can form one today, so the rule is checked on its own)", () => {
    const pos = (line: number) => ({ file: "a.yaml", line, col: 3 });
    const entry = (address: string, line: number, targets: string[]): Entry => ({
      address,
      kind: getKind("tunnel_group_backend"),
      keyPos: pos(line),
      body: { type: "map", entries: [], pos: pos(line) },
      fields: {},
      options: { prevent_destroy: false },
      refs: targets.map((target, i) => ({ pointer: `/x/${i}`, target })),
      index: new Map(
        targets.map((_, i) => [`/x/${i}`, { pos: pos(line + 1 + i), path: `${address}.x[${i}]` }]),
      ),
      fromFile: new Map(),
      fromEnv: new Set(),
    });
    const entries = [
      entry("tunnel_group_backends.a", 1, ["tunnel_group_backends.b"]),
      entry("tunnel_group_backends.b", 10, ["tunnel_group_backends.c"]),
      entry("tunnel_group_backends.c", 20, ["tunnel_group_backends.a", "tunnel_group_backends.d"]),
      entry("tunnel_group_backends.d", 30, []),
      entry("tunnel_group_backends.e", 40, ["tunnel_group_backends.e"]),
    ];
    const problems = new ProblemList();
    referenceCycles.check({
      entries,
      byAddress: new Map(entries.map((e) => [e.address, e])),
      stack: "s",
      ownership: "marker",
      problems,
      display: (p) => p,
    });
    const cycle =
      "reference cycle: tunnel_group_backends.a -> tunnel_group_backends.b -> tunnel_group_backends.c -> tunnel_group_backends.a";
    expect(problems.items.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      `2: tunnel_group_backends.a.x[0]: ${cycle}`,
      `11: tunnel_group_backends.b.x[0]: ${cycle}`,
      `21: tunnel_group_backends.c.x[0]: ${cycle}`,
      "41: tunnel_group_backends.e.x[0]: reference cycle: tunnel_group_backends.e -> tunnel_group_backends.e",
    ]);
  });
});

describe("several files", () => {
  it("reports an address defined twice, naming both places", async () => {
    expect(
      await problems({
        "a.yaml": yaml("api_keys:", "  ci: {}"),
        "b.yaml": yaml("# second file", "api_keys:", "  ci: {description: again}"),
      }),
    ).toEqual(["b.yaml:3:3: api_keys.ci: is defined twice: also at a.yaml:2:3"]);
  });

  it("reports the same module in two files, and a route configured under two edges", async () => {
    const route = (edge: string, module: string) =>
      yaml(
        "edges:",
        "  https:",
        `    ${edge}:`,
        "      routes:",
        "        edghtsrt_1:",
        `          ${module}: {}`,
      );
    expect(
      await problems({
        "a.yaml": route("edghts_1", "compression"),
        "b.yaml": route("edghts_1", "compression"),
        "c.yaml": route("edghts_2", "saml"),
      }),
    ).toEqual([
      "b.yaml:6:11: edges.https.edghts_1.routes.edghtsrt_1.compression: is defined twice: also at a.yaml:6:11",
      "c.yaml:6:11: edges.https.edghts_2.routes.edghtsrt_1.saml: edghtsrt_1 is also configured under edges.https.edghts_1.routes (a.yaml:6:11); it belongs to one parent, so write its modules there once",
      "c.yaml:6:11: edges.https.edghts_2.routes.edghtsrt_1.saml.idp_metadata: is required",
    ]);
  });

  it("reports stack and ownership set differently in two files", async () => {
    expect(
      await problems({
        "a.yaml": yaml("stack: prod", "ownership: marker"),
        "b.yaml": yaml("stack: staging", "ownership: state-only"),
      }),
    ).toEqual([
      'b.yaml:1:8: stack: is "staging" here but "prod" at a.yaml:1:8: set it once, or the same everywhere',
      'b.yaml:2:12: ownership: is "state-only" here but "marker" at a.yaml:2:12: set it once, or the same everywhere',
    ]);
  });

  it("reports paths that do not exist and directories without configuration", async () => {
    expect(await problems({ "empty/README.md": "nothing\n" }, { paths: ["missing.yaml", "empty"] })).toEqual([
      "empty: no configuration files (*.yaml, *.yml) in this directory",
      "missing.yaml: no such file or directory",
    ]);
  });
});

describe("rules", () => {
  it("checks that the private key belongs to the certificate", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "tls_certificates:",
          "  app:",
          `    certificate_pem: \${file:${KEYS}app.example.com.crt.pem}`,
          `    private_key_pem: \${file:${KEYS}api.example.com.key.pem}`,
        ),
      }),
    ).toEqual([
      "a.yaml:4:22: tls_certificates.app.private_key_pem: does not belong to the leaf certificate of certificate_pem (their public keys differ)",
    ]);
  });

  it("checks ACL ports, repeated set items and the validity window", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "ssh_credentials:",
          "  deploy:",
          `    public_key: ${ed25519}`,
          "    acl: ['bind:example.com:70000', 'bind:example.com:443', 'bind:example.com:443']",
          "ssh_host_certificates:",
          "  host:",
          "    ssh_certificate_authority_id: sshca_1",
          `    public_key: ${ed25519}`,
          "    valid_after: '2027-01-01T00:00:00Z'",
          "    valid_until: '2026-01-01T00:00:00Z'",
        ),
      }),
    ).toEqual([
      "a.yaml:4:11: ssh_credentials.deploy.acl[0]: the port must be 1 to 65535",
      "a.yaml:4:61: ssh_credentials.deploy.acl[2]: repeats item 1: the API keeps this list as a set, so give each item once",
      "a.yaml:10:18: ssh_host_certificates.host.valid_until: must be later than valid_after",
    ]);
  });

  it("refuses two API keys writing their token to the same file", async () => {
    expect(
      await problems({
        "a.yaml": yaml("api_keys:", "  ci: {token_file: shared.token}", "  cd: {token_file: ./shared.token}"),
      }),
    ).toEqual(["a.yaml:3:20: api_keys.cd.token_file: api_keys.ci already writes its token to shared.token"]);
  });
});
