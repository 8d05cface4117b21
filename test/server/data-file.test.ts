/**
 * The `--data` file (issue 12, items 7 and 10; docs/server.md > Storage and logs, Accounts and roles):
 * created 0600 with its -wal and -shm, secrets encrypted at rest with the operator's key (a missing
 * or wrong key is a clear error), and a new admin key minted with file access only, also through
 * `tgw serve --mint-admin-key`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintAdminKeyInFile } from "../../src/server/mint.js";
import { startServer } from "../../src/server/server.js";
import { openDatabase } from "../../src/server/store/database.js";
import { tgw } from "../cli/tgw.js";
import { EXAMPLE_FIXTURES } from "../helpers/server.js";
import { caller } from "./http.js";

const KEY = "data-file-test-key-0123456789";
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tgw-data-file-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every byte of the data file and its companions. */
const bytesOf = (path: string) =>
  Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter(existsSync).map((f) => readFileSync(f)));

describe("the data file", () => {
  it("is created 0600 with its -wal and -shm, and keeps the SSH CA and OIDC secrets encrypted", async () => {
    const dataPath = join(dir, "secrets.db");
    const server = await startServer({
      dataPath,
      dataKey: KEY,
      fixtures: EXAMPLE_FIXTURES,
      bootstrapToken: "t",
    });
    try {
      const call = caller(server.url, "t");
      const route = "/edges/https/edghts_example01/routes/edghtsrt_example01";
      const oidc = await call("PUT", `${route}/oidc`, {
        issuer: "https://id.example.com",
        client_id: "c",
        client_secret: "oidc-secret-at-rest",
      });
      expect(oidc.status).toBe(200);
      for (const file of [dataPath, `${dataPath}-wal`, `${dataPath}-shm`]) {
        expect((statSync(file).mode & 0o777).toString(8), file).toBe("600");
      }
      const bytes = bytesOf(dataPath);
      expect(bytes.includes(Buffer.from("oidc-secret-at-rest"))).toBe(false);
      expect(bytes.includes(Buffer.from("PRIVATE KEY"))).toBe(false);
      // Still usable: host certificates are signed with the decrypted CA key, the secret reads back.
      const cert = await call("POST", "/ssh_host_certificates", {
        ssh_certificate_authority_id: "sshca_example01",
        public_key: readFileSync(new URL("../../examples/keys/deploy_rsa.pub", import.meta.url), "utf8"),
      });
      expect(cert.status).toBe(201);
      expect((await call("GET", `${route}/oidc`)).body.client_secret).toBe("oidc-secret-at-rest");
    } finally {
      await server.close();
    }
  });

  it("refuses to open without its key, or with another key, saying so", async () => {
    const dataPath = join(dir, "secrets.db");
    await expect(startServer({ dataPath })).rejects.toThrow(/keeps its secrets encrypted: set TGW_DATA_KEY/);
    await expect(startServer({ dataPath, dataKey: "another-key-of-16-chars" })).rejects.toThrow(
      /TGW_DATA_KEY does not open the data file .*secrets\.db/,
    );
    const fresh = join(dir, "new.db");
    await expect(startServer({ dataPath: fresh })).rejects.toThrow(
      /needs a key to encrypt the secrets it (keeps|will keep) .*: set TGW_DATA_KEY/,
    );
    expect(existsSync(fresh)).toBe(false);
  });
});

describe("a new admin key with file access", () => {
  it("works after every admin key is gone and no bootstrap token is given", async () => {
    const dataPath = join(dir, "lost.db");
    const first = await startServer({ dataPath, dataKey: KEY });
    const generated = first.token;
    await first.close();
    const minted = mintAdminKeyInFile(dataPath, KEY);
    const again = await startServer({ dataPath, dataKey: KEY });
    try {
      const call = caller(again.url, minted.token);
      expect((await call("GET", "/debug/requests")).status).toBe(200); // admin only
      const keys = (await call("GET", "/api_keys")).body.keys as { id: string }[];
      for (const k of keys)
        if (k.id !== minted.keyId) expect((await call("DELETE", `/api_keys/${k.id}`)).status).toBe(204);
      expect((await caller(again.url, generated)("GET", "/api_keys")).status).toBe(401);
    } finally {
      await again.close();
    }
    expect(() => mintAdminKeyInFile(dataPath, KEY, "acct_nope")).toThrow(/no account acct_nope/);
  });

  it("tgw serve --mint-admin-key prints a token of a new account that an API call accepts", async () => {
    const dataPath = join(dir, "cli.db");
    (await startServer({ dataPath, dataKey: KEY })).close();
    const run = await tgw(["serve", "--data", dataPath, "--mint-admin-key", "--account", "new"], {
      cwd: dir,
      env: { TGW_DATA_KEY: KEY },
    });
    expect(run.code, run.stderr).toBe(0);
    const token = /TGW_API_KEY=(\S+)/.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout).toMatch(/of account acct_/);
    const server = await startServer({ dataPath, dataKey: KEY });
    try {
      const keys = await caller(server.url, token)("GET", "/api_keys");
      expect(keys.status).toBe(200);
      expect(keys.body.keys).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("is in WAL mode with synchronous NORMAL, as docs/server.md says of its durability", () => {
    const db = openDatabase(join(dir, "pragmas.db"));
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it("of an older format loses its index of every parent_id for one of the objects that have one", () => {
    const path = join(dir, "old-index.db");
    const old = openDatabase(path);
    old.exec("DROP INDEX resources_with_parent; CREATE INDEX resources_by_parent ON resources (parent_id)");
    old.close();
    const db = openDatabase(path);
    try {
      const indexes = db
        .prepare<[], { name: string; sql: string | null }>(
          "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'resources'",
        )
        .all();
      expect(indexes.map((i) => i.name)).not.toContain("resources_by_parent");
      expect(indexes.find((i) => i.name === "resources_with_parent")?.sql).toContain(
        "WHERE parent_id IS NOT NULL",
      );
      // The children of an object (an edge's routes) are still found through it.
      const plan = db
        .prepare<[], { detail: string }>(
          "EXPLAIN QUERY PLAN SELECT * FROM resources WHERE parent_id = 'edghts_1' AND account_id = 'a' ORDER BY seq",
        )
        .all();
      expect(plan.map((p) => p.detail).join(" ")).toContain("resources_with_parent");
    } finally {
      db.close();
    }
  });
});
