/**
 * The reference server for tests: every test file of the project starts a fresh one (in memory, on an
 * ephemeral loopback port) with `startTestServer()` and closes it in `afterAll`. Responses are checked
 * against the schemas' `$defs.response` (a mismatch answers 500), and every request the server
 * receives is recorded, so a test can assert exactly which calls were made.
 *
 * @example
 * let server: Awaited<ReturnType<typeof startTestServer>>;
 * beforeAll(async () => { server = await startTestServer(); });
 * afterAll(() => server.close());
 * // ... apply, then: expect(server.mutations()).toEqual([]);
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createAccount } from "../../src/server/account.js";
import { tokenHash } from "../../src/server/ids.js";
import { startServer } from "../../src/server/server.js";
import type { RecordedRequest } from "../../src/server/types.js";

export type { RecordedRequest };

/** examples/fixtures.yaml: the fixed-id edges, routes, CAs, IP policies, tunnel, users... */
export const EXAMPLE_FIXTURES = fileURLToPath(new URL("../../examples/fixtures.yaml", import.meta.url));

/** The data key test servers with a `dataPath` use unless told otherwise. */
export const TEST_DATA_KEY = "tgw-test-data-key-0123456789";

const MUTATIONS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** Options of startTestServer. */
export interface TestServerOptions {
  /** Fixtures file; default examples/fixtures.yaml; false for none. */
  fixtures?: string | false;
  /** `N/WINDOW`, e.g. `5/1s`; default none. */
  rateLimit?: string;
  /** Fault injection spec, e.g. `503=0.5,seed=1`; default none. */
  faults?: string;
  /** SQLite file (to test restarts); default in memory. */
  dataPath?: string;
  /** Key of the `dataPath` file's encrypted secrets; default a fixed test key. */
  dataKey?: string;
  /** Admin token for this run; default a fresh random one. */
  bootstrapToken?: string;
}

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An admin API token. */
  token: string;
  /** Every request the server received since start (or the last reset), in arrival order. */
  requests: RecordedRequest[];
  /** Only the POST, PATCH, PUT and DELETE requests. */
  mutations(): RecordedRequest[];
  resetRequests(): void;
  /** Makes a new, empty account on this server and returns its first admin token (docs/server.md > Accounts and roles). */
  newAccount(): { accountId: string; token: string };
  /** The id of the live API key whose token `token` is, or undefined (a test oracle, never the API). */
  keyOf(token: string): string | undefined;
  close(): Promise<void>;
}

/** Starts a fresh reference server on an ephemeral port. */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const fixtures = opts.fixtures === undefined ? EXAMPLE_FIXTURES : opts.fixtures;
  const server = await startServer({
    ...(fixtures === false ? {} : { fixtures }),
    ...(opts.rateLimit === undefined ? {} : { rateLimit: opts.rateLimit }),
    ...(opts.faults === undefined ? {} : { faults: opts.faults }),
    ...(opts.dataPath === undefined
      ? {}
      : { dataPath: opts.dataPath, dataKey: opts.dataKey ?? TEST_DATA_KEY }),
    bootstrapToken: opts.bootstrapToken ?? `tgw_test_${randomBytes(16).toString("hex")}`,
    checkResponses: true,
    logger: false,
  });
  const requests = server.app.recordedRequests;
  return {
    url: server.url,
    token: server.token,
    requests,
    mutations: () => requests.filter((r) => MUTATIONS.has(r.method)),
    resetRequests: () => {
      requests.length = 0;
    },
    newAccount: () => {
      const { accountId, token } = createAccount(server.app.store);
      return { accountId, token };
    },
    keyOf: (token) => {
      const found = server.app.store.findTokenHash(tokenHash(token).toString("base64"));
      return found && server.app.store.getInAnyAccount(found.keyId) ? found.keyId : undefined;
    },
    close: server.close,
  };
}
