/** The `state:` block of a configuration (src/config/state-setting.ts): a URL, never a password. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write the interpolation syntax itself
import { describe, expect, it } from "vitest";
import { locateState } from "../../src/state/open.js";
import { load, problems, yaml } from "./helpers.js";

describe("state: block", () => {
  it("gives the URL, with ${env:} substituted (the password may come from there)", async () => {
    const desired = await load(
      {
        "a.yaml": yaml(
          "state:",
          "  url: postgres://tgw:${env:TGW_VAR_DB_PASSWORD}@db.example.com/tgw?schema=web",
        ),
      },
      { env: { TGW_VAR_DB_PASSWORD: "s3cret" } },
    );
    expect(desired.stateUrl).toBe("postgres://tgw:s3cret@db.example.com/tgw?schema=web");
    const none = await load({ "a.yaml": yaml("stack: web") });
    expect(none.stateUrl).toBeUndefined();
  });

  it("refuses a written password, another shape, unknown keys, and naming two URLs", async () => {
    expect(await problems({ "a.yaml": yaml("state:", "  url: postgres://tgw:hunter2@db/tgw") })).toEqual([
      "a.yaml:2:8: state.url: must not hold a password: set PGPASSWORD (or use ~/.pgpass), or write it as ${env:NAME}",
    ]);
    expect(await problems({ "a.yaml": yaml("state: postgres://db/tgw") })).toEqual([
      "a.yaml:1:8: state: must be a mapping with url: (got a string)",
    ]);
    expect(await problems({ "a.yaml": yaml("state:", "  url: mysql://db/tgw", "  path: x") })).toEqual([
      "a.yaml:2:8: state.url: must be a postgres:// URL (or ${env:NAME} holding one)",
      "a.yaml:3:3: state.path: unknown key; expected url",
    ]);
    const two = await problems({
      "a.yaml": yaml("state:", "  url: postgres://db/a"),
      "b.yaml": yaml("state:", "  url: postgres://db/b"),
    });
    expect(two).toHaveLength(1);
    expect(two[0]).toMatch(/^b\.yaml:2:8: state\.url: /);
  });

  it("is overridden by TGW_STATE_URL, itself overridden by --state", () => {
    const configured = "postgres://db/from-config";
    expect(locateState({ configured, env: { TGW_STATE_HOSTS: "db" } })).toEqual({
      kind: "postgres",
      url: configured,
    });
    expect(locateState({ configured, env: { TGW_STATE_URL: "postgres://db/env" } })).toEqual({
      kind: "postgres",
      url: "postgres://db/env",
    });
    expect(
      locateState({
        state: "other/state.json",
        configured,
        env: { TGW_STATE_URL: "postgres://db/env" },
        cwd: "/w",
      }),
    ).toEqual({
      kind: "file",
      path: "/w/other/state.json",
    });
    expect(() => locateState({ state: "mysql://db/x", env: {} })).toThrow(
      /only postgres:\/\/ URLs and file paths/,
    );
  });

  it("is used only when the operator allows its host (TGW_STATE_HOSTS): the password would be sent there", () => {
    const refused =
      /names the PostgreSQL host evil\.example, which the operator has not allowed .*TGW_STATE_HOSTS=evil\.example/;
    expect(() => locateState({ configured: "postgres://tgw@evil.example/tgw", env: {} })).toThrow(refused);
    expect(() =>
      locateState({ configured: "postgres://tgw@evil.example/tgw", env: { TGW_STATE_HOSTS: "db, other" } }),
    ).toThrow(refused);
    // The host the driver connects to: ?host= wins over the URL's.
    expect(() =>
      locateState({ configured: "postgres://tgw@db/tgw?host=evil.example", env: { TGW_STATE_HOSTS: "db" } }),
    ).toThrow(refused);
    expect(
      locateState({
        configured: "postgres://tgw@EVIL.example/tgw",
        env: { TGW_STATE_HOSTS: "db evil.example" },
      }),
    ).toMatchObject({ kind: "postgres" });
    // No host: the operator's PGHOST or the local socket.
    expect(locateState({ configured: "postgres:///tgw", env: {} })).toMatchObject({ kind: "postgres" });
    // The operator's own URL needs no listing.
    expect(locateState({ state: "postgres://tgw@evil.example/tgw", env: {} })).toMatchObject({
      kind: "postgres",
    });
    expect(
      locateState({
        configured: "postgres://tgw@evil.example/a",
        env: { TGW_STATE_URL: "postgres://x@h/b" },
      }),
    ).toMatchObject({ url: "postgres://x@h/b" });
  });
});
