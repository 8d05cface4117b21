/**
 * A reader that goes away (`tgw apply | head -1`): the run neither crashes on EPIPE nor stops half-way.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { manyBackends, spawnTgw, tgw } from "./tgw.js";

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = await manyBackends(40, "closed");
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("output closed by its reader", () => {
  it("an apply whose reader left after the first line still applies everything and exits 0", async () => {
    const child = spawnTgw(["apply", "-f", ".", "--auto-approve"], {
      cwd: dir,
      server: { url: server.url, token: server.token },
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // Like `head -1`: read the first chunk, then close the pipe; later writes get EPIPE.
    child.stdout?.once("data", () => child.stdout?.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
    const plan = await tgw(["plan", "-f", ".", "--detailed-exitcode"], {
      cwd: dir,
      server: { url: server.url, token: server.token },
    });
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });
});
