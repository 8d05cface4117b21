import { describe, expect, it } from "vitest";
import {
  createAjv,
  getKind,
  inlineRefs,
  type JsonSchema,
  loadSchemaDocuments,
  schemaKey,
  specKinds,
} from "../../src/model/index.js";

const ajv = createAjv();
const validate = (kind: string, def: "create" | "update" | "put" | "response", body: unknown) => {
  const fn = ajv.getSchema(schemaKey(getKind(kind).schemaId, def));
  if (!fn) throw new Error(`no schema ${kind}/${def}`);
  const ok = fn(body);
  return { ok, errors: fn.errors ?? [] };
};

const roleAuth = { role: { role_arn: "arn:aws:iam::123:role/tgw" }, creds: null };
const spec: Array<[string, "create" | "update" | "put", unknown]> = [
  ["api_key", "create", { description: "ci deployer", metadata: '{"team":"infra"}' }],
  ["api_key", "update", { description: "renamed" }],
  [
    "ssh_credential",
    "create",
    {
      public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAxlaRbCTmtgDLbhVl3fvsXh9MMzHMCimrbN7Kx8EpKE",
      acl: ["bind:*.example.com", "bind:example.com:443", "bind:env=prod", "bind:*=web"],
    },
  ],
  [
    "ssh_host_certificate",
    "create",
    {
      ssh_certificate_authority_id: "sshca_1",
      public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAxlaRbCTmtgDLbhVl3fvsXh9MMzHMCimrbN7Kx8EpKE",
      principals: ["host.example.com"],
      valid_until: "2027-01-01T00:00:00Z",
    },
  ],
  ["tunnel_group_backend", "create", { labels: { env: "prod" } }],
  ["ip_restriction", "create", { type: "dashboard", enforced: true, ip_policy_ids: ["ipp_1"] }],
  ["abuse_report", "create", { urls: ["https://bad.example.com/x"] }],
  [
    "event_destination",
    "create",
    {
      format: "json",
      target: {
        stream_target: { auth: roleAuth, stream_arn: "arn:aws:kinesis:x" },
        delivery_stream_target: null,
      },
    },
  ],
  [
    "event_subscription",
    "create",
    { sources: [{ type: "ip_policy_created.v0" }], destination_ids: ["ed_1"] },
  ],
  [
    "saml",
    "put",
    {
      idp_metadata: "<EntityDescriptor/>",
      nameid_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
    },
  ],
  [
    "oidc",
    "put",
    { issuer: "https://accounts.example.com", client_id: "abc", client_secret: "s3cret", scopes: ["openid"] },
  ],
  ["user_agent_filter", "put", { allow: ["^curl/"], deny: [".*bot.*"] }],
  ["response_headers", "put", { add: { "X-Frame-Options": "DENY" }, remove: ["Server"] }],
  ["compression", "put", { enabled: false }],
  ["https_edge_mutual_tls", "put", { certificate_authority_ids: ["ca_1"] }],
  ["tls_edge_backend", "put", { backend_id: "bkdtg_1" }],
  ["tls_edge_mutual_tls", "put", { enabled: true, certificate_authority_ids: [] }],
  ["tcp_edge_backend", "put", { backend_id: "bkdtg_1" }],
];

describe("kind schemas", () => {
  it("cover the 19 kinds of docs/api.md", () => {
    expect(
      specKinds()
        .map((k) => k.kind)
        .sort(),
    ).toEqual(
      [
        "abuse_report",
        "api_key",
        "compression",
        "endpoint",
        "event_destination",
        "event_subscription",
        "https_edge_mutual_tls",
        "ip_restriction",
        "oidc",
        "response_headers",
        "saml",
        "ssh_credential",
        "ssh_host_certificate",
        "tcp_edge_backend",
        "tls_certificate",
        "tls_edge_backend",
        "tls_edge_mutual_tls",
        "tunnel_group_backend",
        "user_agent_filter",
      ].sort(),
    );
  });

  it.each(spec)("%s %s accepts a SPEC-shaped body", (kind, def, body) => {
    expect(validate(kind, def, body).errors).toEqual([]);
  });

  it("counts description and metadata limits in UTF-8 bytes", () => {
    expect(validate("api_key", "create", { description: "a".repeat(255) }).ok).toBe(true);
    expect(validate("api_key", "create", { description: "a".repeat(256) }).ok).toBe(false);
    expect(validate("api_key", "create", { metadata: "m".repeat(4096) }).ok).toBe(true);
    expect(validate("api_key", "create", { metadata: "m".repeat(4097) }).ok).toBe(false);
    const r = validate("api_key", "create", { description: "é".repeat(200) });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatchObject({ keyword: "maxBytes", instancePath: "/description" });
    expect(r.errors[0]?.message).toBe("must be at most 255 bytes of UTF-8 (is 400 bytes)");
  });

  it("counts event subscription limits in characters", () => {
    const base = { sources: [{ type: "api_key_created.v0" }], destination_ids: ["ed_1"] };
    expect(validate("event_subscription", "create", { ...base, description: "é".repeat(255) }).ok).toBe(true);
    expect(validate("event_subscription", "create", { ...base, description: "é".repeat(256) }).ok).toBe(
      false,
    );
    expect(validate("event_subscription", "create", { ...base, metadata: "é".repeat(4097) }).ok).toBe(false);
  });

  it("requires exactly one event target member and one cloud auth", () => {
    const stream = { auth: roleAuth, stream_arn: "arn:s" };
    const two = validate("event_destination", "create", {
      format: "json",
      target: { stream_target: stream, log_group_target: { auth: roleAuth, log_group_arn: "arn:l" } },
    });
    expect(two.ok).toBe(false);
    expect(two.errors.map((e) => e.message)).toContain(
      "must have exactly one of delivery_stream_target, stream_target, log_group_target, monitoring_target (has stream_target and log_group_target)",
    );
    expect(validate("event_destination", "create", { format: "json", target: {} }).ok).toBe(false);
    const bothAuth = {
      role: { role_arn: "arn:r" },
      creds: { cloud_access_key_id: "a", cloud_secret_access_key: "b" },
    };
    expect(
      validate("event_destination", "create", {
        format: "json",
        target: { stream_target: { auth: bothAuth, stream_arn: "x" } },
      }).ok,
    ).toBe(false);
  });

  it("rejects unknown enum values and unknown fields", () => {
    expect(validate("ip_restriction", "create", { type: "ssh", ip_policy_ids: ["ipp_1"] }).ok).toBe(false);
    expect(
      validate("event_destination", "create", {
        format: "xml",
        target: { monitoring_target: { api_key: "k" } },
      }).ok,
    ).toBe(false);
    expect(validate("saml", "put", { idp_metadata: "<x/>", nameid_format: "urn:bogus" }).ok).toBe(false);
    const unknown = validate("api_key", "create", { descriptoin: "typo" });
    expect(unknown.errors[0]).toMatchObject({
      keyword: "additionalProperties",
      params: { additionalProperty: "descriptoin" },
    });
  });

  it("rejects ACL rules not of the docs/api.md forms, bad header names and bad regexes", () => {
    const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAxlaRbCTmtgDLbhVl3fvsXh9MMzHMCimrbN7Kx8EpKE";
    expect(validate("ssh_credential", "create", { public_key: key, acl: ["*"] }).ok).toBe(true);
    for (const rule of ["connect:example.com", "bind:", "bind:exa mple.com", "bind:a.com:port"]) {
      expect(validate("ssh_credential", "create", { public_key: key, acl: [rule] }).ok, rule).toBe(false);
    }
    expect(validate("response_headers", "put", { add: { "Bad Header": "x" } }).ok).toBe(false);
    expect(validate("user_agent_filter", "put", { allow: ["(unclosed"] }).ok).toBe(false);
  });
});

describe("kind descriptors", () => {
  it("derive mutable and replace-forcing fields from the create and update schemas", () => {
    const host = getKind("ssh_host_certificate");
    const field = (n: string) => host.fields.find((f) => f.name === n);
    expect(field("description")).toMatchObject({ mutable: true, forcesReplace: false, default: "" });
    expect(field("principals")).toMatchObject({ mutable: false, forcesReplace: true, unordered: true });
    expect(field("ssh_certificate_authority_id")).toMatchObject({
      required: true,
      ref: ["ssh_certificate_authority"],
    });
    expect(field("valid_until")).toMatchObject({ dateTime: true });
    const saml = getKind("saml");
    expect(saml.fields.every((f) => f.mutable)).toBe(true);
    expect(saml.fields.find((f) => f.name === "enabled")?.default).toBe(true);
  });

  it("record write-only, secret and live-path annotations", () => {
    const cert = getKind("tls_certificate").fields.find((f) => f.name === "private_key_pem");
    expect(cert).toMatchObject({ writeOnly: true, secret: true, forcesReplace: true });
    expect(getKind("tls_edge_backend").fields.find((f) => f.name === "backend_id")).toMatchObject({
      ref: ["tunnel_group_backend"],
      live: "backend.id",
    });
    expect(getKind("event_destination").secretPaths).toContainEqual([
      "target",
      "delivery_stream_target",
      "auth",
      "creds",
      "cloud_secret_access_key",
    ]);
    expect(getKind("event_destination").secretPaths).toContainEqual([
      "target",
      "monitoring_target",
      "api_key",
    ]);
    expect(getKind("api_key").secretPaths).toContainEqual(["token"]);
    expect(getKind("oidc").secretPaths).toContainEqual(["client_secret"]);
  });

  it("record the response-only fields a field determines: the root of live, and x-tgw.determines", () => {
    const field = (kind: string, name: string) => getKind(kind).fields.find((f) => f.name === name);
    expect(field("tls_edge_backend", "backend_id")?.determines).toEqual(["backend"]);
    expect(field("ip_restriction", "ip_policy_ids")?.determines).toEqual(["ip_policies"]);
    expect(field("tunnel_group_backend", "labels")?.determines).toEqual(["tunnels"]);
    expect(field("tunnel_group_backend", "description")?.determines).toBeUndefined();
    // Each names a property of the response that is not a request field (a typo would be silent).
    for (const kind of specKinds()) {
      const doc = loadSchemaDocuments().byId.get(kind.schemaId);
      const response = (doc?.$defs as Record<string, JsonSchema> | undefined)?.response;
      const props = Object.keys((response && inlineRefs(response, kind.schemaId).properties) ?? {});
      for (const f of kind.fields) {
        for (const d of f.determines ?? []) {
          expect(props, `${kind.kind}.${f.name} determines ${d}`).toContain(d);
          expect(kind.fields.map((x) => x.name)).not.toContain(d);
        }
      }
    }
  });
});
