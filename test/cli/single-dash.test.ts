/**
 * Terraform's single-dash long options (issue 46 §1): `tgw apply -auto-approve`, `tgw plan
 * -out=FILE -detailed-exitcode -target=ADDR` work as with two dashes; short options keep their
 * meaning; an option tgw does not have is refused, named with two dashes as help names options.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commands } from "../../src/cli/commands/index.js";
import { doubleDashLongOptions } from "../../src/cli/single-dash.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { manyBackends, tgw } from "./tgw.js";

describe("through the CLI", () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    dir = await manyBackends(2, "single-dash");
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const run = (args: string[]) => tgw(args, { cwd: dir, server: { url: server.url, token: server.token } });

  it("plan -out=FILE -detailed-exitcode -target=ADDR, then apply -auto-approve", async () => {
    const planned = await run([
      "plan",
      "-f",
      ".",
      "-out=tgw.plan",
      "-detailed-exitcode",
      "-target=tunnel_group_backends.b000",
    ]);
    expect(planned.stderr).not.toContain("unknown option");
    expect(planned.code).toBe(2);
    const saved = JSON.parse(await readFile(join(dir, "tgw.plan"), "utf8"));
    expect(saved.plan.summary).toMatchObject({ create: 1, update: 0, delete: 0 });
    const applied = await run(["apply", "-f", ".", "-auto-approve", "-parallelism", "2", "-lock-timeout=5s"]);
    expect(applied.code).toBe(0);
    expect(server.mutations().map((r) => r.method)).toEqual(["POST", "POST"]);
  });

  it("an option tgw does not have is refused, named with two dashes", async () => {
    const lock = await run(["plan", "-f", ".", "-lock=false"]);
    expect(lock.code).toBe(1);
    expect(lock.stderr).toContain("error: unknown option '--lock=false'");
    const help = await run(["apply", "-help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--auto-approve");
  });
});

describe("doubleDashLongOptions", () => {
  let program: Command;
  beforeAll(async () => {
    program = new Command().name("tgw").option("--debug").option("--no-color");
    for (const entry of commands) (await entry.load())(program);
  });
  const words = (...args: string[]) => doubleDashLongOptions(program, args);

  it("writes a long option's single dash as two, with its value inline or next", () => {
    expect(words("apply", "-auto-approve", "-max-deletes", "5", "-state=s.json").args).toEqual([
      "apply",
      "--auto-approve",
      "--max-deletes",
      "5",
      "--state=s.json",
    ]);
    // The program's options after a command, a sub-command's own, help.
    expect(words("state", "rm", "-stack=ci", "a.b", "-debug", "-no-color", "-help").args).toEqual([
      "state",
      "rm",
      "--stack=ci",
      "a.b",
      "--debug",
      "--no-color",
      "--help",
    ]);
  });

  it("keeps short options, a long option before a short one's meaning", () => {
    expect(words("plan", "-f", "infra", "-finfra", "-h").args).toEqual([
      "plan",
      "-f",
      "infra",
      "-finfra",
      "-h",
    ]);
    expect(words("plan", "-force").args).toEqual(["plan", "--force"]);
  });

  it("leaves an option's value and what follows -- alone", () => {
    expect(words("plan", "-target", "-auto-approve", "-f", "-json", "--replace", "-x").args).toEqual([
      "plan",
      "--target",
      "-auto-approve",
      "-f",
      "-json",
      "--replace",
      "-x",
    ]);
    expect(words("state", "rm", "--", "-auto-approve").args).toEqual(["state", "rm", "--", "-auto-approve"]);
  });

  it("writes an unknown long-looking word with two dashes, so commander's error names it so", () => {
    expect(words("plan", "-lock=false", "-input", "-1", "-z").args).toEqual([
      "plan",
      "--lock=false",
      "--input",
      "-1",
      "-z",
    ]);
  });

  it("names the command the words run", () => {
    expect(words("-debug", "state", "rm", "a.b").command).toBe("tgw state rm");
    expect(words("plan", "-out", "state").command).toBe("tgw plan");
    expect(words("-help").command).toBe("tgw");
  });
});
