/**
 * Masking secrets (src/engine/mask.ts) copies only what it changes: the input stays as it was, and
 * values without secrets are shared, not cloned (a plan of 10,000 objects masks every one).
 */
import { describe, expect, it } from "vitest";
import { mapSecrets, maskValues, SENSITIVE } from "../../src/engine/mask.js";
import { getKind } from "../../src/model/index.js";

describe("mapSecrets", () => {
  it("replaces secrets in a copy and leaves the input as it was", () => {
    const kind = getKind("event_destination");
    const values = {
      description: "d",
      target: { monitoring_target: { api_key: "secret-key", service: "s" } },
    };
    const masked = maskValues(kind, values);
    expect(masked).toEqual({
      description: "d",
      target: { monitoring_target: { api_key: SENSITIVE, service: "s" } },
    });
    expect(values.target.monitoring_target.api_key).toBe("secret-key");
  });

  it("returns values without secrets themselves", () => {
    const values = { description: "d", labels: { a: "b" } };
    expect(mapSecrets(getKind("tunnel_group_backend"), values, () => SENSITIVE)).toBe(values);
    const cert = { description: "d", certificate_pem: "pem" };
    expect(maskValues(getKind("tls_certificate"), cert)).toBe(cert);
  });
});

describe("maskValues with the pointers of values from the environment", () => {
  const backend = getKind("tunnel_group_backend");
  it("masks the value at each pointer, a list on the way whole, and leaves the rest shared", () => {
    const values = { description: "team x", labels: { "a/b": "v", app: "web" }, metadata: "m" };
    expect(maskValues(backend, values, ["/description", "/labels/a~1b"])).toEqual({
      description: SENSITIVE,
      labels: { "a/b": SENSITIVE, app: "web" },
      metadata: "m",
    });
    expect(values.description).toBe("team x");
    const ip = getKind("ip_restriction");
    expect(maskValues(ip, { ip_policy_ids: ["a", "b"] }, ["/ip_policy_ids/1"])).toEqual({
      ip_policy_ids: SENSITIVE,
    });
    expect(maskValues(backend, values, ["/missing/x"])).toBe(values);
  });
});
