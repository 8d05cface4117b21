/**
 * Long waits say what they wait for: a server that accepts connections and never answers is reported
 * through `onWaiting` after 2 s (what, how long so far, the deadline), and `--debug` logs every API call
 * (method, path, status, time) without a body or a secret; an interrupted apply names what was done.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, type WaitingEvent } from "../../src/client/index.js";
import { ApplyFailedError } from "../../src/engine/index.js";
import { manyBackends, tgw } from "../cli/tgw.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

let silent: Server;
let url: string;
let server: TestServer;
beforeAll(async () => {
  silent = createServer(() => {}); // accepts, never answers
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  server = await startTestServer();
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise<void>((r) => silent.close(() => r()));
  await server.close();
});

describe("long waits", () => {
  it("a call without an answer is reported after 2 s with what it waits for", async () => {
    const waits: WaitingEvent[] = [];
    const api = new ApiClient({
      baseUrl: url,
      apiKey: "k",
      timeoutMs: 3_500,
      retry: { retries: 0 },
      onWaiting: (e) => waits.push(e),
    });
    await expect(api.get("/api_keys")).rejects.toThrow();
    await api.close();
    expect(waits[0]).toMatchObject({ method: "GET", path: "/api_keys", for: "response", timeoutMs: 3_500 });
    // Timers may fire a hair early against performance.now().
    expect(waits[0]?.waitedMs).toBeGreaterThanOrEqual(1_900);
  });

  it("--debug logs each API call: method, path, status and time, never the key", async () => {
    const dir = await manyBackends(1, "dbg");
    const out = await tgw(["plan", "--debug"], { cwd: dir, server });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/^debug: GET \/backends\/tunnel_group(\?\S*)? 200 \d+ms$/m);
    expect(out.stderr).not.toContain(server.token);
  });

  it("an interrupted apply names what was done and what was not started", () => {
    const change = (address: string) => ({
      address,
      kind: "tunnel_group_backend",
      action: "create" as const,
      changedFields: [],
      reason: "",
      dependsOn: [],
    });
    const err = new ApplyFailedError(
      [
        { change: change("tunnel_group_backends.a"), status: "done", id: "bkdtg_1" },
        { change: change("tunnel_group_backends.b"), status: "not-started" },
      ],
      true,
    );
    expect(err.message).toContain("Done: tunnel_group_backends.a.");
    expect(err.message).toContain("1 done, 1 not started (tunnel_group_backends.b)");
  });
});
