/**
 * Every class of bad input answers the documented status with the error body of docs/design.md
 * section 5, a message naming the field (and the limit), and changes nothing: each case lists the
 * affected collection (or reads the module) before and after.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestCertificate } from "../../src/crypto/testing.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Answer, type Caller, caller, errorMessage } from "./http.js";

const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

let server: TestServer;
let call: Caller;
let user: Caller;

beforeAll(async () => {
  server = await startTestServer();
  call = caller(server.url, server.token);
  const userKey = await call("POST", "/api_keys", { owner_id: "usr_example01" });
  user = caller(server.url, userKey.body.token);
});
afterAll(() => server.close());

/** Runs `request` and checks the answer's status, that msg contains each of `parts`, and that `watched` did not change. */
async function refused(
  watched: string,
  status: number,
  parts: string[],
  request: () => Promise<Answer>,
): Promise<string> {
  const before = await call("GET", watched);
  const answer = await request();
  const msg = errorMessage(answer, status);
  for (const part of parts) expect(msg).toContain(part);
  const after = await call("GET", watched);
  expect(after.status).toBe(before.status);
  // Error bodies (a module not set) differ only by their operation id.
  const strip = (a: Answer) => (a.body?.details ? { ...a.body, details: undefined } : a.body);
  expect(strip(after)).toEqual(strip(before));
  return msg;
}

describe("credentials and headers", () => {
  test("no token: 401", async () => {
    await refused("/api_keys", 401, ["Authorization"], () =>
      call("POST", "/api_keys", {}, { authorization: undefined }),
    );
  });
  test("unknown token: 401", async () => {
    await refused("/api_keys", 401, ["not valid"], () =>
      call("POST", "/api_keys", {}, { authorization: "Bearer tgw_nope" }),
    );
  });
  test("not a Bearer header: 401", async () => {
    await refused("/api_keys", 401, ["Bearer"], () =>
      call("POST", "/api_keys", {}, { authorization: `Basic ${server.token}` }),
    );
  });
  test("missing Service-Version: 400", async () => {
    await refused("/api_keys", 400, ["Service-Version", "missing"], () =>
      call("POST", "/api_keys", {}, { "service-version": undefined }),
    );
  });
  test("wrong Service-Version: 400", async () => {
    await refused("/api_keys", 400, ['"1"', "Service-Version: 2"], () =>
      call("POST", "/api_keys", {}, { "service-version": "1" }),
    );
  });
  test("malformed JSON: 400", async () => {
    await refused("/api_keys", 400, ["not valid JSON"], () =>
      call("POST", "/api_keys", '{"description": "x"'),
    );
  });
  test("a body that is not an object: 400", async () => {
    await refused("/api_keys", 400, ["JSON object"], () => call("POST", "/api_keys", "[1, 2]"));
  });
  test("wrong content type: 415", async () => {
    await refused("/api_keys", 415, ['"text/plain"', "application/json"], () =>
      call("POST", "/api_keys", '{"description":"x"}', { "content-type": "text/plain" }),
    );
  });
  test("body without content type: 415", async () => {
    await refused("/api_keys", 415, ["missing"], () =>
      call("POST", "/api_keys", '{"description":"x"}', { "content-type": undefined }),
    );
  });
  test("body too large: 413", async () => {
    await refused("/api_keys", 413, ["1048576"], () =>
      call("POST", "/api_keys", { description: "x".repeat(2_000_000) }),
    );
  });
  test("method not allowed: 405 with Allow", async () => {
    let answer: Answer | undefined;
    await refused("/api_keys", 405, ["PUT", "allowed: POST, GET"], async () => {
      answer = await call("PUT", "/api_keys", {});
      return answer;
    });
    expect(answer?.headers.get("allow")).toBe("POST, GET");
  });
  test("unknown path: 404", async () => {
    errorMessage(await call("GET", "/no_such_things"), 404);
  });
});

describe("ids", () => {
  test("unknown, malformed and wrong-prefix ids: 404", async () => {
    for (const id of ["ak_doesnotexist", "ak_bad!id", "ak_", "sshcr_abc", "ipp_example01"]) {
      expect(errorMessage(await call("GET", `/api_keys/${encodeURIComponent(id)}`), 404)).toContain(id);
      await refused("/api_keys", 404, [id], () =>
        call("PATCH", `/api_keys/${encodeURIComponent(id)}`, { description: "x" }),
      );
      await refused("/api_keys", 404, [id], () => call("DELETE", `/api_keys/${encodeURIComponent(id)}`));
    }
  });
  test("a route under another edge: 404", async () => {
    const edge = await call("POST", "/edges/https", { hostports: ["b.example.com:443"] });
    errorMessage(await call("GET", `/edges/https/${edge.body.id}/routes/edghtsrt_example01`), 404);
    errorMessage(await call("GET", "/edges/https/edghts_nope/routes"), 404);
  });
});

describe("fields and limits", () => {
  test("unknown field: 400 naming it", async () => {
    const msg = await refused("/api_keys", 400, [], () => call("POST", "/api_keys", { descriptoin: "typo" }));
    expect(msg).toBe('unknown field "descriptoin"');
  });
  test("nested unknown field: 400 with its path", async () => {
    await refused("/event_destinations", 400, ['unknown field "target.monitoring_target.apikey"'], () =>
      call("POST", "/event_destinations", {
        format: "json",
        target: { monitoring_target: { api_key: "k", apikey: "k" } },
      }),
    );
  });
  test("description over 255 bytes of UTF-8 (but under 255 characters): 400 naming size and limit", async () => {
    const msg = await refused("/api_keys", 400, [], () =>
      call("POST", "/api_keys", { description: "é".repeat(150) }),
    );
    expect(msg).toBe("description is 300 bytes of UTF-8, the limit is 255");
  });
  test("description of exactly 255 bytes is accepted", async () => {
    expect((await call("POST", "/api_keys", { description: `${"é".repeat(127)}x` })).status).toBe(201);
  });
  test("metadata over 4096 bytes: 400", async () => {
    await refused("/ssh_credentials", 400, ["metadata is 4097 bytes of UTF-8, the limit is 4096"], () =>
      call("POST", "/ssh_credentials", { public_key: key("deploy_ed25519.pub"), metadata: "m".repeat(4097) }),
    );
  });
  test("event subscriptions count characters, not bytes", async () => {
    const ed = await call("POST", "/event_destinations", {
      format: "json",
      target: { monitoring_target: { api_key: "k" } },
    });
    const ok = await call("POST", "/event_subscriptions", {
      description: "é".repeat(255),
      sources: [],
      destination_ids: [ed.body.id],
    });
    expect(ok.status).toBe(201);
    await refused("/event_subscriptions", 400, ["description is 256 characters, the limit is 255"], () =>
      call("POST", "/event_subscriptions", {
        description: "é".repeat(256),
        sources: [],
        destination_ids: [ed.body.id],
      }),
    );
  });
  test("bad enum: 400 listing the allowed values", async () => {
    await refused(
      "/ip_restrictions",
      400,
      ["type must be one of dashboard, api, agent, endpoints", '"firewall"'],
      () => call("POST", "/ip_restrictions", { type: "firewall", ip_policy_ids: ["ipp_example01"] }),
    );
  });
  test("missing required field: 400 naming it", async () => {
    await refused("/ip_restrictions", 400, ['missing required field "ip_policy_ids"'], () =>
      call("POST", "/ip_restrictions", { type: "api" }),
    );
  });
  test("wrong type: 400", async () => {
    await refused("/ip_restrictions", 400, ["enforced must be true or false"], () =>
      call("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01"], enforced: "yes" }),
    );
  });
  test("two event target members: 400", async () => {
    await refused(
      "/event_destinations",
      400,
      ["target: must have exactly one of", "has log_group_target and monitoring_target"],
      () =>
        call("POST", "/event_destinations", {
          format: "json",
          target: {
            log_group_target: { auth: { role: { role_arn: "arn:r" } }, log_group_arn: "arn:l" },
            monitoring_target: { api_key: "k" },
          },
        }),
    );
  });
  test("two cloud auth members: 400", async () => {
    await refused(
      "/event_destinations",
      400,
      ["target.stream_target.auth: must have exactly one of role, creds"],
      () =>
        call("POST", "/event_destinations", {
          format: "json",
          target: {
            stream_target: {
              auth: {
                role: { role_arn: "arn:r" },
                creds: { cloud_access_key_id: "a", cloud_secret_access_key: "s" },
              },
              stream_arn: "arn:s",
            },
          },
        }),
    );
  });
  test("unknown reference: 404 naming the field", async () => {
    await refused("/ip_restrictions", 404, ["ip_policy_ids[1]: no IP policy with id ipp_nope"], () =>
      call("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01", "ipp_nope"] }),
    );
  });
  test("wrong-prefix reference: 404 naming the field", async () => {
    await refused("/ip_restrictions", 404, ["ip_policy_ids[0]: no IP policy with id ca_example01"], () =>
      call("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ca_example01"] }),
    );
  });
  test("unknown reference in a PATCH: 404 and the object is unchanged", async () => {
    const created = await call("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01"] });
    await refused(created.body.uri, 404, ["ip_policy_ids[0]"], () =>
      call("PATCH", created.body.uri, { description: "new", ip_policy_ids: ["ipp_gone"] }),
    );
  });
});

describe("crypto inputs", () => {
  test("invalid PEM: 400", async () => {
    await refused("/tls_certificates", 400, ["certificate_pem"], () =>
      call("POST", "/tls_certificates", {
        certificate_pem: "not a pem",
        private_key_pem: key("app.example.com.key.pem"),
      }),
    );
    await refused("/tls_certificates", 400, ["private_key_pem"], () =>
      call("POST", "/tls_certificates", {
        certificate_pem: key("app.example.com.crt.pem"),
        private_key_pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
      }),
    );
  });
  test("private key of another certificate: 400", async () => {
    const other = await createTestCertificate({ keyType: "rsa" });
    await refused("/tls_certificates", 400, ["private_key_pem does not match certificate_pem"], () =>
      call("POST", "/tls_certificates", {
        certificate_pem: key("app.example.com.crt.pem"),
        private_key_pem: other.privateKeyPem,
      }),
    );
  });
  test("bad SSH key: 400", async () => {
    await refused("/ssh_credentials", 400, ["public_key"], () =>
      call("POST", "/ssh_credentials", { public_key: "ssh-ed25519 AAAA" }),
    );
    await refused("/ssh_credentials", 400, ["private key"], () =>
      call("POST", "/ssh_credentials", {
        public_key: "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----",
      }),
    );
    await refused("/ssh_host_certificates", 400, ["public_key"], () =>
      call("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: "ssh-dss AAAAB3NzaC1kc3M=",
      }),
    );
  });
  test("bad ACL rule: 400 naming the rule", async () => {
    for (const rule of ["connect:example.com", "bind:", "bind:exa mple.com", "bind:example.com:99999"]) {
      await refused("/ssh_credentials", 400, ["acl[1]"], () =>
        call("POST", "/ssh_credentials", {
          public_key: key("deploy_ed25519.pub"),
          acl: ["bind:ok.example.com", rule],
        }),
      );
    }
  });
  test("host certificate whose validity ends before it starts: 400", async () => {
    await refused("/ssh_host_certificates", 400, ["valid_until must be later than valid_after"], () =>
      call("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_ed25519.pub"),
        valid_after: "2030-01-01T00:00:00Z",
        valid_until: "2029-01-01T00:00:00Z",
      }),
    );
  });
  test("timestamps must be RFC 3339: 400", async () => {
    await refused("/ssh_host_certificates", 400, ["valid_after must be an RFC 3339 timestamp"], () =>
      call("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: key("deploy_ed25519.pub"),
        valid_after: "tomorrow",
      }),
    );
  });
});

describe("modules", () => {
  const route = "/edges/https/edghts_example01/routes/edghtsrt_example02";
  test("bad regex: 400, module not set", async () => {
    await refused(`${route}/user_agent_filter`, 400, ["deny[0] is not a valid regular expression"], () =>
      call("PUT", `${route}/user_agent_filter`, { allow: ["^curl"], deny: ["(unclosed"] }),
    );
  });
  test("bad nameid format: 400, module not set", async () => {
    await refused(
      `${route}/saml`,
      400,
      ["nameid_format must be one of", "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"],
      () =>
        call("PUT", `${route}/saml`, {
          idp_metadata: "<EntityDescriptor/>",
          nameid_format: "urn:example:nameid",
        }),
    );
  });
  test("bad header name: 400", async () => {
    await refused(`${route}/response_headers`, 400, ['add: key "Bad Header"', "remove[0]"], () =>
      call("PUT", `${route}/response_headers`, { add: { "Bad Header": "x" }, remove: ["no:colon"] }),
    );
  });
  test("the same header twice in different case: 400", async () => {
    await refused(`${route}/response_headers`, 400, ["given twice"], () =>
      call("PUT", `${route}/response_headers`, { add: { "X-A": "1", "x-a": "2" } }),
    );
  });
  test("a failed PUT leaves the module as it was", async () => {
    const path = `${route}/oidc`;
    const good = { issuer: "https://id.example.com", client_id: "c", client_secret: "s" };
    expect((await call("PUT", path, good)).status).toBe(200);
    await refused(path, 400, ["issuer must be an absolute URL"], () =>
      call("PUT", path, { ...good, issuer: "not a url" }),
    );
  });
  test("unknown backend: 404 naming the field", async () => {
    await refused(
      "/edges/tcp/edgtcp_example01/backend",
      404,
      ["backend_id: no tunnel group backend with id bkdtg_nope"],
      () => call("PUT", "/edges/tcp/edgtcp_example01/backend", { backend_id: "bkdtg_nope" }),
    );
  });
  test("unknown edge or route: 404", async () => {
    errorMessage(await call("PUT", "/edges/tls/edgtls_nope/backend", { backend_id: "x" }), 404);
    errorMessage(
      await call("PUT", "/edges/https/edghts_example01/routes/edghtsrt_nope/compression", {}),
      404,
    );
  });
});

describe("permissions and conflicts", () => {
  test("owner_id set to someone else by a non-admin: 403", async () => {
    await refused("/api_keys", 403, ["owner_id", "only an admin"], () =>
      user("POST", "/api_keys", { owner_id: "bot_example01" }),
    );
    await refused("/ssh_credentials", 403, ["owner_id"], () =>
      user("POST", "/ssh_credentials", { public_key: key("deploy_ed25519.pub"), owner_id: "usr_admin" }),
    );
  });
  test("a non-admin may name itself as owner", async () => {
    const own = await user("POST", "/api_keys", { owner_id: "usr_example01" });
    expect(own.status).toBe(201);
  });
  test("owner that does not exist: 404 naming owner_id", async () => {
    await refused("/api_keys", 404, ["owner_id: no user or bot with id usr_nobody"], () =>
      call("POST", "/api_keys", { owner_id: "usr_nobody" }),
    );
  });
  test("users and bots are created by admins only: 403", async () => {
    await refused("/users", 403, ["only an admin"], () => user("POST", "/users", {}));
    await refused("/bots", 403, ["only an admin"], () => user("DELETE", "/bots/bot_example01"));
  });
  test("deleting a destination still in use: 409", async () => {
    const ed = await call("POST", "/event_destinations", {
      format: "json",
      target: { monitoring_target: { api_key: "k" } },
    });
    const sub = await call("POST", "/event_subscriptions", {
      sources: [{ type: "tunnel_created.v0" }],
      destination_ids: [ed.body.id],
    });
    await refused("/event_destinations", 409, [ed.body.id, `event subscription ${sub.body.id}`], () =>
      call("DELETE", ed.body.uri),
    );
    expect((await call("DELETE", sub.body.uri)).status).toBe(204);
    expect((await call("DELETE", ed.body.uri)).status).toBe(204);
  });
  test("deleting an IP policy a restriction uses: 409", async () => {
    const r = await call("POST", "/ip_restrictions", { type: "agent", ip_policy_ids: ["ipp_example02"] });
    await refused("/ip_policies", 409, ["ipp_example02", r.body.id, "ip_policy_ids"], () =>
      call("DELETE", "/ip_policies/ipp_example02"),
    );
  });
  test("limit 0 and 101 are refused", async () => {
    expect(errorMessage(await call("GET", "/api_keys?limit=0"), 400)).toBe(
      'limit must be an integer from 1 to 100 (got "0")',
    );
    errorMessage(await call("GET", "/api_keys?limit=101"), 400);
    errorMessage(await call("GET", "/api_keys?limit=abc"), 400);
    errorMessage(await call("GET", "/api_keys?before_id=ak_unknown"), 400);
  });
});

describe("abuse reports without the account flag", () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer({ fixtures: false });
  });
  afterAll(() => other.close());
  test("403, nothing created", async () => {
    const c = caller(other.url, other.token);
    const msg = errorMessage(await c("POST", "/abuse_reports", { urls: ["https://x.example.com/"] }), 403);
    expect(msg).toContain("not authorized to use abuse reports");
    expect(errorMessage(await c("GET", "/abuse_reports/abrp_anything"), 403)).toContain("abuse reports");
    expect(other.mutations().map((r) => r.status)).toEqual([403]);
  });
});
