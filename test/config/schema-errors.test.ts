/**
 * Mistakes caught by the layout and schema stages: each reported at the file, line and column of the
 * offending text, with the field path and a message in plain words (issue 4).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KEYS, problems, yaml } from "./helpers.js";

const ed25519 = readFileSync(`${KEYS}deploy_ed25519.pub`, "utf8").trim();

describe("YAML itself", () => {
  it("reports the first syntax error of a file, and still checks the other files", async () => {
    expect(
      await problems({
        "a.yaml": yaml("api_keys:", "  ci: {description: x", "  other: {}"),
        "b.yaml": yaml("api_keys:", "  two:", "    descripton: x"),
      }),
    ).toEqual([
      expect.stringMatching(/^a\.yaml:3:\d+: YAML syntax error: /),
      "b.yaml:3:5: api_keys.two.descripton: unknown field of an API key (did you mean description?); expected description, metadata, owner_id, prevent_destroy, token_file or token_kept_elsewhere",
    ]);
  });

  it("names both lines of a key given twice in one mapping", async () => {
    expect(
      await problems({ "a.yaml": yaml("api_keys:", "  ci: {}", "  web: {}", "  ci:", "    description: x") }),
    ).toEqual(["a.yaml:4:3: api_keys.ci: is given twice in this mapping (first at line 2, column 3)"]);
  });

  it("rejects an unknown tag instead of silently reading a string", async () => {
    expect(
      await problems({ "a.yaml": yaml("ip_restrictions:", "  office:", "    enforced: !true") }),
    ).toEqual(["a.yaml:3:15: YAML problem: Unresolved tag: !true"]);
  });

  it("rejects a document that is not a mapping", async () => {
    expect(await problems({ "a.yaml": yaml("- api_keys") })).toEqual([
      "a.yaml:1:1: a configuration file must be a mapping (got a list)",
    ]);
  });
});

describe("layout", () => {
  it("reports unknown top-level keys with a suggestion, and ignores x- keys", async () => {
    expect(await problems({ "a.yaml": yaml("x-anchors: {a: 1}", "api_key:", "  ci: {}") })).toEqual([
      "a.yaml:2:1: api_key: unknown top-level key (did you mean api_keys?); expected stack, ownership, moved, removed, import, state, api_keys, event_destinations, event_subscriptions, ip_restrictions, ssh_credentials, ssh_host_certificates, tls_certificates, tunnel_group_backends, edges or x-... (free, e.g. for anchors)",
    ]);
  });

  it("checks resource names", async () => {
    expect(await problems({ "a.yaml": yaml("api_keys:", "  CI_Key: {}", "  -bad: {}") })).toEqual([
      "a.yaml:2:3: api_keys.CI_Key: is not a valid name: use 1 to 63 lower-case letters, digits, _ or -, starting with a letter or digit",
      "a.yaml:3:3: api_keys.-bad: is not a valid name: use 1 to 63 lower-case letters, digits, _ or -, starting with a letter or digit",
    ]);
  });

  it("checks that edge and route keys are ids of the right kind, and module names", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "edges:",
          "  tls:",
          "    edghts_abc: {}",
          "  https:",
          "    edghts_abc:",
          "      routes:",
          "        edghtsrt_1:",
          "          sam1: {}",
          "        route1: {}",
          "  tcpp: {}",
        ),
      }),
    ).toEqual([
      "a.yaml:3:5: edges.tls.edghts_abc: is an HTTPS edge id (edghts_...), but each key of edges.tls must be a TLS edge id (edgtls_...)",
      "a.yaml:8:11: edges.https.edghts_abc.routes.edghtsrt_1.sam1: unknown key (did you mean saml?); expected compression, oidc, response_headers, saml or user_agent_filter",
      "a.yaml:9:9: edges.https.edghts_abc.routes.route1: must be an HTTPS edge route id (edghtsrt_...)",
      "a.yaml:10:3: edges.tcpp: unknown key (did you mean tcp?); expected https, tcp or tls",
    ]);
  });

  it("checks stack and ownership", async () => {
    expect(await problems({ "a.yaml": yaml("stack: my stack", "ownership: markers") })).toEqual([
      "a.yaml:1:8: stack: must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit",
      "a.yaml:2:12: ownership: must be marker or state-only",
    ]);
  });
});

describe("fields against the kind's schema", () => {
  it("reports every mistake of one file at once, each at its own line", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "ssh_credentials:",
          "  deploy:",
          "    description: 42",
          "    acl: [bind:example.com, 'bind:two words']",
          "ip_restrictions:",
          "  office:",
          "    type: dashbord",
          "    ip_policy_ids: []",
          "tunnel_group_backends:",
          "  web:",
          "    labels: {env: prod, port: 8080}",
          "    prevent_destroy: yes",
        ),
      }),
    ).toEqual([
      "a.yaml:2:3: ssh_credentials.deploy.public_key: is required",
      "a.yaml:3:18: ssh_credentials.deploy.description: must be a string (got a whole number): put it in quotes",
      "a.yaml:4:29: ssh_credentials.deploy.acl[1]: must be an ACL rule: *, bind:<domain>, bind:*.<domain>, bind:<host>:<port>, bind:<key>=<value> or bind:*=<value>",
      'a.yaml:7:11: ip_restrictions.office.type: must be "dashboard", "api", "agent" or "endpoints" (did you mean dashboard?)',
      "a.yaml:8:20: ip_restrictions.office.ip_policy_ids: must have at least 1 item",
      "a.yaml:11:31: tunnel_group_backends.web.labels.port: must be a string (got a whole number): put it in quotes",
      "a.yaml:12:22: tunnel_group_backends.web.prevent_destroy: must be true or false (got a string)",
    ]);
  });

  it("checks nested objects: exactly one target member, exactly one auth", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "event_destinations:",
          "  logs:",
          "    format: json",
          "    target:",
          "      log_group_target:",
          "        log_group_arn: arn:x",
          "        auth: {}",
          "      stream_target: {stream_arn: arn:y, auth: {role: {role_arn: arn:z}}}",
        ),
      }),
    ).toEqual([
      "a.yaml:5:7: event_destinations.logs.target: must have exactly one of delivery_stream_target, stream_target, log_group_target, monitoring_target (has stream_target and log_group_target)",
      "a.yaml:7:15: event_destinations.logs.target.log_group_target.auth: must have exactly one of role, creds (has none)",
    ]);
  });

  it("explains a PEM that does not parse, naming the file it came from", async () => {
    const out = await problems({
      "a.yaml": yaml(
        "tls_certificates:",
        "  app:",
        "    certificate_pem: ${file:cert.pem}",
        `    private_key_pem: \${file:${KEYS}app.example.com.key.pem}`,
      ),
      "cert.pem": "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
    });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(
      /^a\.yaml:3:22: tls_certificates\.app\.certificate_pem: PEM block 1 \(CERTIFICATE\) does not contain valid base64 data \(read from cert\.pem\)$/,
    );
  });

  it("explains an SSH public key that does not parse", async () => {
    expect(
      await problems({ "a.yaml": yaml("ssh_credentials:", "  deploy:", "    public_key: ssh-ed25519 AAAA") }),
    ).toEqual([
      expect.stringMatching(/^a\.yaml:3:17: ssh_credentials\.deploy\.public_key: (?!public_key:).+/),
    ]);
  });

  it("explains a regular expression that does not compile", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "edges:",
          "  https:",
          "    edghts_1:",
          "      routes:",
          "        edghtsrt_1:",
          "          user_agent_filter:",
          "            deny: ['^ok$', '(unclosed']",
        ),
      }),
    ).toEqual([
      "a.yaml:7:28: edges.https.edghts_1.routes.edghtsrt_1.user_agent_filter.deny[1]: not a valid regular expression: Invalid regular expression: /(unclosed/: Unterminated group",
    ]);
  });

  it("checks header names at the key, and header name duplicates that differ in case", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "edges:",
          "  https:",
          "    edghts_1:",
          "      routes:",
          "        edghtsrt_1:",
          "          response_headers:",
          "            add:",
          "              X-Frame-Options: DENY",
          "              x-frame-options: SAMEORIGIN",
          '              "Bad Header": x',
          "            remove: [Server, server]",
        ),
      }),
    ).toEqual([
      "a.yaml:9:15: edges.https.edghts_1.routes.edghtsrt_1.response_headers.add.x-frame-options: is the same header as X-Frame-Options (header names are case-insensitive)",
      'a.yaml:10:15: edges.https.edghts_1.routes.edghtsrt_1.response_headers.add["Bad Header"]: is not an HTTP header name (RFC 9110 token: letters, digits and !#$%&\'*+.^_`|~-)',
      "a.yaml:11:30: edges.https.edghts_1.routes.edghtsrt_1.response_headers.remove[1]: repeats item 0: the API keeps this list as a set, so give each item once",
    ]);
  });

  it("checks the metadata limit on the value as sent, ownership marker included", async () => {
    // {"note":"x...x"} is 4051 bytes: under 4096 alone; the marker
    // ,"tgw":{"address":"api_keys.ci","create":"<16 hex digits>","lineage":"<36-character lineage>",
    // "serial":<9 digits>,"stack":"stack"} adds 144.
    const files = (ownership: string) => ({
      "a.yaml": yaml(
        `ownership: ${ownership}`,
        "api_keys:",
        "  ci:",
        `    metadata: {note: ${"x".repeat(4040)}}`,
      ),
    });
    expect(await problems(files("marker"))).toEqual([
      "a.yaml:4:15: api_keys.ci.metadata: must be at most 4096 bytes of UTF-8 as sent, which includes the ownership marker tgw adds (is 4195)",
    ]);
    await expect(problems(files("state-only"))).rejects.toThrow(/expected a ConfigError/);
  });

  it("accepts metadata as a mapping or a string, nothing else", async () => {
    expect(await problems({ "a.yaml": yaml("api_keys:", "  ci:", "    metadata: [a, b]") })).toEqual([
      "a.yaml:3:15: api_keys.ci.metadata: must be a mapping or a string (got a list)",
    ]);
  });

  it("rejects the reserved metadata key tgw, in a mapping or in JSON text", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "api_keys:",
          "  one:",
          "    metadata: {team: a, tgw: x}",
          "  two:",
          `    metadata: '{"tgw": {"stack": "other"}}'`,
        ),
      }),
    ).toEqual([
      "a.yaml:3:25: api_keys.one.metadata.tgw: the top-level key tgw is reserved for tgw's ownership marker",
      "a.yaml:5:15: api_keys.two.metadata: holds a JSON object with the top-level key tgw, which is reserved for tgw's ownership marker",
    ]);
  });

  it("rejects an option on a kind it does not apply to", async () => {
    expect(
      await problems({
        "a.yaml": yaml("tunnel_group_backends:", "  web:", "    token_file: x.token", `    labels: {a: b}`),
      }),
    ).toEqual([
      "a.yaml:3:5: tunnel_group_backends.web.token_file: unknown field of a tunnel group backend; expected description, metadata, labels or prevent_destroy",
    ]);
  });

  it("accepts a valid SSH credential next to the broken ones", async () => {
    expect(
      await problems({
        "a.yaml": yaml(
          "ssh_credentials:",
          "  good:",
          `    public_key: ${ed25519}`,
          "  bad:",
          "    acl: ['*']",
        ),
      }),
    ).toEqual(["a.yaml:4:3: ssh_credentials.bad.public_key: is required"]);
  });
});
