/**
 * src/client/agent.ts builds undici's Agent from its modules instead of the package's index: it must
 * stay the Agent the index exports, with the request API the index adds, and load neither the rest of
 * the package nor Node's own copy of undici. Checked in a process of its own: loading the index in
 * this one would add the request API itself.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/client/agent.js";
import { startTestServer } from "../helpers/server.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const AGENT = pathToFileURL(fileURLToPath(new URL("../../src/client/agent.ts", import.meta.url))).href;

describe("the client's undici Agent", () => {
  it("has the request API without loading undici's index or Node's own undici", () => {
    const script = `
      const { Agent } = await import(${JSON.stringify(AGENT)});
      const agent = new Agent();
      const methods = ["request", "stream", "pipeline", "connect", "upgrade"].filter((m) => typeof agent[m] === "function");
      const loaded = Object.keys((await import("node:module")).createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        methods,
        index: loaded.some((f) => /undici[\\\\/]index\\.js$/.test(f)),
        nodeUndici: process.moduleLoadList.some((m) => m.includes("undici")),
      }));
      await agent.close();`;
    const out = execFileSync(process.execPath, ["--import", TSX, "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({
      methods: ["request", "stream", "pipeline", "connect", "upgrade"],
      index: false,
      nodeUndici: false,
    });
  });

  it("is the class undici's index exports, and sends a request", async () => {
    const undici = await import("undici");
    expect(Agent).toBe(undici.Agent);
    const server = await startTestServer();
    const agent = new Agent();
    try {
      const res = await agent.request({
        origin: server.url,
        path: "/api_keys",
        method: "GET",
        headers: { authorization: `Bearer ${server.token}`, "service-version": "2" },
      });
      expect(res.statusCode).toBe(200);
      expect(Array.isArray(((await res.body.json()) as { keys: unknown }).keys)).toBe(true);
    } finally {
      await agent.close();
      await server.close();
    }
  });
});
