/**
 * The provider's resource rules without Terraform (src/terraform/values.ts): plans through the
 * engine's diff, write-only digests, secrets the API leaves out, header names the server lower-cases.
 */
import { describe, expect, it } from "vitest";
import { sha256 } from "../../src/engine/fingerprint.js";
import { type TfObject, UNKNOWN } from "../../src/terraform/cty.js";
import { loadProviderSchema } from "../../src/terraform/schema.js";
import { attributePath, validateConfig } from "../../src/terraform/validate.js";
import {
  changedFields,
  plannedState,
  type ResourceType,
  resourceType,
  stateFromLive,
  writeOnlyDigests,
} from "../../src/terraform/values.js";

const schema = loadProviderSchema();
const type = (name: string): ResourceType => {
  const rt = resourceType(name, schema.resources[name] as NonNullable<(typeof schema.resources)[string]>);
  if (!rt) throw new Error(name);
  return rt;
};
const full = (rt: ResourceType, values: TfObject): TfObject => {
  const out: TfObject = {};
  for (const name of Object.keys(rt.attributes)) out[name] = values[name] ?? null;
  return out;
};

describe("terraform values", () => {
  it("a changed private key replaces the certificate, found by its digest in private state", () => {
    const rt = type("tunnelgw_tls_certificate");
    const prior = full(rt, { id: "cert_1", certificate_pem: "CERT", description: "", metadata: "" });
    const priv = writeOnlyDigests(rt, full(rt, { private_key_pem: "KEY-1" }), {});
    const same = full(rt, { certificate_pem: "CERT", private_key_pem: "KEY-1" });
    expect(changedFields(rt, same, prior, priv)).toEqual({ changed: [], replace: [] });
    const other = full(rt, { certificate_pem: "CERT", private_key_pem: "KEY-2" });
    expect(changedFields(rt, other, prior, priv).replace).toEqual(["private_key_pem"]);
    expect(plannedState(rt, other, prior, true).private_key_pem).toBeNull();
  });

  it("compares private_key_pem as normalised PEM text, also against a digest of raw text (issue 27)", () => {
    const rt = type("tunnelgw_tls_certificate");
    const prior = full(rt, { id: "cert_1", certificate_pem: "CERT", description: "", metadata: "" });
    const key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    const priv = writeOnlyDigests(rt, full(rt, { private_key_pem: key }), {});
    for (const text of [`${key}\n`, key.replaceAll("\n", "\r\n"), `  ${key.trim()}  `]) {
      const config = full(rt, { certificate_pem: "CERT", private_key_pem: text });
      expect(changedFields(rt, config, prior, priv)).toEqual({ changed: [], replace: [] });
    }
    // A digest of the raw text (kept before normalisation) still matches that text.
    const raw = key.trim();
    const legacy = { writeOnly: { private_key_pem: sha256(raw) } };
    const config = full(rt, { certificate_pem: "CERT", private_key_pem: raw });
    expect(changedFields(rt, config, prior, legacy)).toEqual({ changed: [], replace: [] });
    const other = full(rt, { certificate_pem: "CERT", private_key_pem: key.replace("AAAA", "BBBB") });
    expect(changedFields(rt, other, prior, priv).replace).toEqual(["private_key_pem"]);
  });

  it("keeps a secret the API does not return, and the configured case of header names", () => {
    const dest = type("tunnelgw_event_destination");
    const known = full(dest, {
      id: "ed_1",
      description: "",
      metadata: "",
      format: "json",
      target: {
        monitoring_target: { api_key: "s3cret", service: "x", monitoring_tags: "", monitoring_site: "" },
      },
    });
    const raw = {
      id: "ed_1",
      description: "",
      metadata: "",
      format: "json",
      target: { monitoring_target: { service: "x", monitoring_tags: "", monitoring_site: "" } },
    };
    const state = stateFromLive(dest, known, raw, "ed_1", {});
    expect((state.target as TfObject).monitoring_target).toMatchObject({ api_key: "s3cret" });

    const headers = type("tunnelgw_https_edge_route_response_headers");
    const mine = full(headers, {
      id: "/edges/https/e/routes/r/response_headers",
      edge_id: "e",
      route_id: "r",
      enabled: true,
      add: { "X-Frame-Options": "DENY" },
      remove: ["Server"],
    });
    const live = { enabled: true, add: { "x-frame-options": "DENY" }, remove: ["server"] };
    expect(stateFromLive(headers, mine, live, String(mine.id), {}).add).toEqual({
      "X-Frame-Options": "DENY",
    });
    const drifted = { ...live, add: { "x-frame-options": "SAMEORIGIN" } };
    expect(stateFromLive(headers, mine, drifted, String(mine.id), {}).add).toEqual({
      "x-frame-options": "SAMEORIGIN",
    });
  });

  it("plans an omitted field with a server default as that default, and the token as kept", () => {
    const key = type("tunnelgw_api_key");
    const prior = full(key, {
      id: "ak_1",
      description: "x",
      metadata: "",
      owner_id: "usr_1",
      token: "tgw_t",
    });
    const planned = plannedState(key, full(key, {}), prior, false);
    expect(planned).toMatchObject({ description: "", metadata: "", owner_id: "usr_1", token: "tgw_t" });
    expect(changedFields(key, full(key, {}), prior, {}).changed).toEqual(["description"]);
    const read = stateFromLive(
      key,
      prior,
      { id: "ak_1", description: "x", metadata: "", owner_id: "usr_1", token: null },
      "ak_1",
      {},
    );
    expect(read.token).toBe("tgw_t");
  });

  it("plans a response-only attribute unknown when the field it derives from changes, else the prior", () => {
    const rt = type("tunnelgw_tunnel_group_backend");
    const prior = full(rt, {
      id: "bkdtg_1",
      uri: "https://api/backends/tunnel_group/bkdtg_1",
      created_at: "2026-01-01T00:00:00Z",
      description: "",
      metadata: "",
      labels: { app: "db" },
      tunnels: [],
    });
    const relabel = full(rt, { labels: { app: "web" } });
    const { changed } = changedFields(rt, relabel, prior, {});
    expect(changed).toEqual(["labels"]);
    const planned = plannedState(rt, relabel, prior, false, changed);
    expect(planned.tunnels).toBe(UNKNOWN);
    expect(planned).toMatchObject({ id: "bkdtg_1", uri: prior.uri, created_at: prior.created_at });
    const edited = full(rt, { description: "x", labels: { app: "db" } });
    const other = plannedState(rt, edited, prior, false, changedFields(rt, edited, prior, {}).changed);
    expect(other.tunnels).toEqual([]);
  });

  it("validates with the messages of tgw validate, at Terraform attribute paths", () => {
    const dest = type("tunnelgw_event_destination");
    const config = full(dest, {
      format: "json",
      target: {
        monitoring_target: { api_key: "", service: null, monitoring_tags: null, monitoring_site: null },
      },
    });
    const problems = validateConfig(dest, config, { stack: "terraform:x", address: dest.typeName });
    expect(problems).toEqual([
      { path: ["target", "monitoring_target", "api_key"], message: "must not be empty" },
    ]);
    expect(attributePath(dest.attributes, ["target", "monitoring_target", "api_key"])).toEqual([
      { attribute_name: "target" },
      { attribute_name: "monitoring_target" },
      { attribute_name: "api_key" },
    ]);
    const sub = type("tunnelgw_event_subscription");
    expect(attributePath(sub.attributes, ["sources", 0, "type"])).toEqual([{ attribute_name: "sources" }]);
    const headers = type("tunnelgw_https_edge_route_response_headers");
    expect(attributePath(headers.attributes, ["add", "x-a"])).toEqual([
      { attribute_name: "add" },
      { element_key_string: "x-a" },
    ]);
  });
});
