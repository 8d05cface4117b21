/**
 * The embedded default: with no TGW_API_URL, `tgw apply` then `tgw plan` work on a fresh machine with
 * nothing else running (the reference server starts in-process, its data under `.tgw/`); and
 * `tgw endpoints` lists the active endpoints there.
 */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExamples, manyBackends, tgw } from "./tgw.js";

let dir: string;
beforeAll(async () => {
  dir = await copyExamples();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("embedded reference server", () => {
  it("apply -f examples/complete --auto-approve, then plan: no changes", async () => {
    const applied = await tgw(["apply", "-f", "examples/complete", "--auto-approve"], { cwd: dir });
    expect(applied.code).toBe(0);
    expect(applied.stderr).toBe(
      "Using the embedded reference server (data in examples/complete/.tgw/server.sqlite); set TGW_API_URL and TGW_API_KEY to use another API.\n",
    );
    expect(applied.stdout).toMatch(/Apply complete: \d+ created/);
    await stat(join(dir, "examples/complete/.tgw/server.sqlite"));
    const planned = await tgw(["plan", "-f", "examples/complete", "--detailed-exitcode"], { cwd: dir });
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain("No changes. Live state matches the configuration.");
  });

  it("tgw endpoints shows the fixtures' endpoints as a table", async () => {
    const out = await tgw(["endpoints", "-f", "examples/complete"], { cwd: dir });
    expect(out.code).toBe(0);
    const [header, ...rows] = out.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+TYPE\s+PROTO\s+PUBLIC URL\s+HOSTPORT$/);
    expect(
      rows.some((r) =>
        /^ep_\w+\s+ephemeral\s+https\s+https:\/\/app\.example\.com\s+app\.example\.com:443$/.test(r),
      ),
    ).toBe(true);
    expect(rows.some((r) => /\bedge\b.*tls\.example\.com:443$/.test(r))).toBe(true);
    const json = JSON.parse(
      (await tgw(["endpoints", "-f", "examples/complete", "--json"], { cwd: dir })).stdout,
    );
    expect(json.length).toBe(rows.length);
  });

  it("TGW_API_URL without TGW_API_KEY is a usage error", async () => {
    const out = await tgw(["plan", "-f", "examples/complete"], {
      cwd: dir,
      env: { TGW_API_URL: "http://127.0.0.1:9" },
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("Error [usage]: TGW_API_URL is set but TGW_API_KEY is not");
  });
});

describe("commands that only read", () => {
  it("tgw plan and tgw endpoints create no .tgw/ (no server data, no state) in a fresh configuration", async () => {
    const fresh = await manyBackends(1, "fresh");
    try {
      const planned = await tgw(["plan", "--detailed-exitcode"], { cwd: fresh });
      expect(planned.code).toBe(2);
      expect(planned.stderr).toContain("(no data yet: .tgw/server.sqlite is created by the first apply)");
      expect((await tgw(["endpoints"], { cwd: fresh })).code).toBe(0);
      expect(await readdir(fresh)).toEqual(["tgw.yaml"]);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});
