/**
 * Authentication and storage (docs/design.md section 5): the API key token is returned by the create
 * response only and never stored in clear (the SQLite file is inspected); the bootstrap token; key
 * owners and admin rights; a `--data` store keeps everything across a restart, and fixtures are
 * loaded once per store.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer } from "../../src/server/server.js";
import { EXAMPLE_FIXTURES, startTestServer, TEST_DATA_KEY } from "../helpers/server.js";
import { caller, errorMessage } from "./http.js";

const key = (name: string) => readFileSync(new URL(`../../examples/keys/${name}`, import.meta.url), "utf8");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tgw-server-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("API key tokens", () => {
  test("the token is in the create response only, and only its SHA-256 is stored", async () => {
    const dataPath = join(dir, "tokens.db");
    const server = await startTestServer({ dataPath });
    const call = caller(server.url, server.token);
    let token: string;
    let id: string;
    try {
      const created = await call("POST", "/api_keys", { description: "ci" });
      token = created.body.token;
      id = created.body.id;
      expect(token).toMatch(/^tgw_[A-Za-z0-9_-]{43}$/);
      expect((await call("GET", `/api_keys/${id}`)).body.token).toBeNull();
      expect((await call("PATCH", `/api_keys/${id}`, { description: "ci 2" })).body.token).toBeNull();
      const listed = (await call("GET", "/api_keys")).body.keys.find((k: { id: string }) => k.id === id);
      expect(listed.token).toBeNull();

      // The new token works, as a non-admin owned by the caller's user (the admin).
      const own = caller(server.url, token);
      expect((await own("GET", "/api_keys")).status).toBe(200);
    } finally {
      await server.close();
    }

    const db = new Database(dataPath, { readonly: true });
    try {
      const everything = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .flatMap((t) => db.prepare(`SELECT * FROM "${(t as { name: string }).name}"`).all())
        .map((row) =>
          JSON.stringify(row, (_k, v) =>
            Buffer.isBuffer(v) || v?.type === "Buffer" ? Buffer.from(v).toString("hex") : v,
          ),
        )
        .join("\n");
      expect(everything).not.toContain(token);
      expect(everything).not.toContain(server.token);
      const stored = db.prepare("SELECT token_sha256 FROM api_key_hashes WHERE key_id = ?").get(id) as {
        token_sha256: Buffer;
      };
      expect(Buffer.from(stored.token_sha256).toString("hex")).toBe(
        createHash("sha256").update(token).digest("hex"),
      );
    } finally {
      db.close();
    }
    // Also raw bytes of the file (and its WAL), in case a page was left outside any table.
    for (const file of [dataPath, `${dataPath}-wal`]) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch {
        continue;
      }
      expect(bytes.includes(Buffer.from(token))).toBe(false);
    }
  });

  test("a deleted key's token is refused", async () => {
    const server = await startTestServer({ fixtures: false });
    try {
      const call = caller(server.url, server.token);
      const created = await call("POST", "/api_keys", {});
      const theirs = caller(server.url, created.body.token);
      expect((await theirs("GET", "/api_keys")).status).toBe(200);
      expect((await call("DELETE", created.body.uri)).status).toBe(204);
      expect(errorMessage(await theirs("GET", "/api_keys"), 401)).toContain("not valid");
    } finally {
      await server.close();
    }
  });
});

describe("owners and admins", () => {
  test("keys default to the caller's owner; admins may name a bot; a user's key is not admin", async () => {
    const server = await startTestServer();
    try {
      const admin = caller(server.url, server.token);
      const botKey = await admin("POST", "/api_keys", { owner_id: "bot_example01" });
      expect(botKey.body.owner_id).toBe("bot_example01");
      const bot = caller(server.url, botKey.body.token);
      const fromBot = await bot("POST", "/ssh_credentials", { public_key: key("deploy_ecdsa.pub") });
      expect(fromBot.body.owner_id).toBe("bot_example01");
      expect(errorMessage(await bot("GET", "/debug/requests"), 403)).toContain("admin");
      expect((await admin("GET", "/debug/requests")).status).toBe(200);
      const fromAdmin = await admin("POST", "/api_keys", {});
      expect(fromAdmin.body.owner_id).toBe("usr_admin");
    } finally {
      await server.close();
    }
  });
});

describe("restart with --data", () => {
  test("everything is still there; the generated bootstrap token is made once and keeps working", async () => {
    const dataPath = join(dir, "restart.db");
    const first = await startServer({ dataPath, dataKey: TEST_DATA_KEY, fixtures: EXAMPLE_FIXTURES });
    expect(first.tokenGenerated).toBe(true);
    const call1 = caller(first.url, first.token);
    const paths = [
      "/api_keys",
      "/ssh_credentials",
      "/tls_certificates",
      "/ip_restrictions",
      "/edges/https",
      "/ssh_certificate_authorities",
    ];
    let before: unknown[];
    let keyToken: string;
    try {
      keyToken = (await call1("POST", "/api_keys", { description: "survivor" })).body.token;
      await call1("POST", "/ssh_credentials", { public_key: key("deploy_rsa.pub") });
      await call1("POST", "/tls_certificates", {
        certificate_pem: key("api.example.com.crt.pem"),
        private_key_pem: key("api.example.com.key.pem"),
      });
      await call1("POST", "/ip_restrictions", { type: "api", ip_policy_ids: ["ipp_example01"] });
      await call1("PUT", "/edges/https/edghts_example01/routes/edghtsrt_example01/saml", {
        idp_metadata: "<EntityDescriptor/>",
      });
      // A fixture deleted by a client stays deleted after the restart.
      expect((await call1("DELETE", "/ip_policies/ipp_example02")).status).toBe(204);
      before = await Promise.all(paths.map(async (p) => (await call1("GET", p)).body));
      before.push((await call1("GET", "/edges/https/edghts_example01/routes/edghtsrt_example01/saml")).body);
    } finally {
      await first.close();
    }

    const second = await startServer({ dataPath, dataKey: TEST_DATA_KEY, fixtures: EXAMPLE_FIXTURES });
    try {
      expect(second.tokenGenerated).toBe(false);
      const call2 = caller(second.url, first.token);
      const after = await Promise.all(paths.map(async (p) => (await call2("GET", p)).body));
      after.push((await call2("GET", "/edges/https/edghts_example01/routes/edghtsrt_example01/saml")).body);
      const portless = (v: unknown) =>
        JSON.parse(JSON.stringify(v).replaceAll(first.url, "BASE").replaceAll(second.url, "BASE"));
      expect(portless(after)).toEqual(portless(before));
      expect((await call2("GET", "/ip_policies/ipp_example02")).status).toBe(404);
      expect((await caller(second.url, keyToken)("GET", "/api_keys")).status).toBe(200);
      // The run token of the second start works too, without having been stored.
      expect((await caller(second.url, second.token)("GET", "/api_keys")).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  test("close is graceful: a request in flight still gets its answer and is stored", async () => {
    const dataPath = join(dir, "graceful.db");
    const server = await startServer({
      dataPath,
      dataKey: TEST_DATA_KEY,
      fixtures: EXAMPLE_FIXTURES,
      bootstrapToken: "t",
    });
    const path = "/edges/https/edghts_example01/routes/edghtsrt_example01/saml";
    // The first PUT of a SAML module makes an RSA key pair: slow enough to be in flight at close.
    const inFlight = caller(server.url, "t")("PUT", path, { idp_metadata: "<EntityDescriptor/>" });
    // Close once the server has received it (recorded with status 0 until it is answered).
    while (!server.app.recordedRequests.some((r) => r.method === "PUT" && r.status === 0)) {
      await new Promise((r) => setTimeout(r, 2));
    }
    await server.close();
    expect((await inFlight).status).toBe(200);
    const again = await startServer({ dataPath, dataKey: TEST_DATA_KEY, bootstrapToken: "t" });
    try {
      expect((await caller(again.url, "t")("GET", path)).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  test("a given bootstrap token is valid for its run only", async () => {
    const dataPath = join(dir, "bootstrap.db");
    const a = await startServer({ dataPath, dataKey: TEST_DATA_KEY, bootstrapToken: "run-one" });
    await a.close();
    const b = await startServer({ dataPath, dataKey: TEST_DATA_KEY, bootstrapToken: "run-two" });
    try {
      expect(b.token).toBe("run-two");
      expect((await caller(b.url, "run-two")("GET", "/api_keys")).status).toBe(200);
      expect((await caller(b.url, "run-one")("GET", "/api_keys")).status).toBe(401);
      expect((await caller(b.url, "run-two")("GET", "/api_keys")).body.keys).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
