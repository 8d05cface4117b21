/**
 * `tgw state list | show | rm`, run as a user runs them: the real CLI in its own process, in a
 * temporary directory, against a state written by the file store.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileStateStore, type StateRecord, type StateSnapshot } from "../../../src/state/index.js";
import { tgw as runTgw } from "../tgw.js";

/** `tgw args...` in `cwd`, with no API (the state commands do not call it). */
const tgw = (args: string[], cwd: string) => runTgw(args, { cwd });

const sha = (c: string) => c.repeat(64);
const RECORDS: StateRecord[] = [
  {
    address: "tls_certificates.web",
    kind: "tls_certificate",
    id: "cert_2f1",
    fingerprint: sha("a"),
    writeOnly: { private_key_pem: sha("b") },
    appliedAt: "2025-03-01T10:00:00.000Z",
  },
  {
    address: "api_keys.ci",
    kind: "api_key",
    id: "ak_1",
    fingerprint: sha("c"),
    appliedAt: "2025-03-01T10:00:01.000Z",
  },
  {
    address: "api_keys.deployer",
    kind: "api_key",
    id: "ak_2",
    fingerprint: sha("d"),
    dependsOn: ["tls_certificates.web"],
    appliedAt: "2025-03-01T10:00:02.000Z",
  },
  {
    address: "edges.https.edghts_1.saml",
    kind: "saml",
    id: "/edges/https/edghts_1/saml",
    fingerprint: sha("e"),
    appliedAt: "2025-03-01T10:00:03.000Z",
  },
];

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-state-cli-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function seed(stateDir = dir): Promise<{ store: FileStateStore; snapshot: StateSnapshot }> {
  const store = new FileStateStore(join(stateDir, ".tgw", "state.json"), { stack: "shop" });
  const s = await store.read();
  for (const r of RECORDS) s.resources[r.address] = r;
  return { store, snapshot: await store.write(s) };
}

describe("tgw state list", () => {
  it("says there is no state yet, in text and JSON", async () => {
    const [text, json] = await Promise.all([
      tgw(["state", "list"], dir),
      tgw(["state", "list", "--json"], dir),
    ]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    expect(text.stdout).toBe(
      `No state at ${join(".tgw", "state.json")}: nothing has been applied with it yet.\n`,
    );
    expect(JSON.parse(json.stdout)).toEqual({
      state: join(".tgw", "state.json"),
      stack: null,
      lineage: null,
      serial: 0,
      resources: [],
    });
  });

  it("lists address, kind, id and applied time sorted by address; filters by collection; --json", async () => {
    const { snapshot } = await seed();
    const [all, some, json] = await Promise.all([
      tgw(["state", "list"], dir),
      tgw(["state", "list", "api_keys"], dir),
      tgw(["state", "list", "--json"], dir),
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(
      [
        "ADDRESS                    KIND             ID                          APPLIED AT",
        "api_keys.ci                api_key          ak_1                        2025-03-01T10:00:01.000Z",
        "api_keys.deployer          api_key          ak_2                        2025-03-01T10:00:02.000Z",
        "edges.https.edghts_1.saml  saml             /edges/https/edghts_1/saml  2025-03-01T10:00:03.000Z",
        "tls_certificates.web       tls_certificate  cert_2f1                    2025-03-01T10:00:00.000Z",
        `4 resources in state ${join(".tgw", "state.json")} (stack shop, serial 1, lineage ${snapshot.lineage})`,
        "",
      ].join("\n"),
    );
    expect(some.stdout.split("\n").slice(1, 3)).toEqual([
      "api_keys.ci        api_key  ak_1  2025-03-01T10:00:01.000Z",
      "api_keys.deployer  api_key  ak_2  2025-03-01T10:00:02.000Z",
    ]);
    expect(some.stdout).toContain("2 of 4 resources");
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ stack: "shop", lineage: snapshot.lineage, serial: 1 });
    expect(out.resources[0]).toEqual({
      address: "api_keys.ci",
      kind: "api_key",
      id: "ak_1",
      appliedAt: "2025-03-01T10:00:01.000Z",
    });
  });

  it("finds the state beside the configuration given with -f, or at --state", async () => {
    await mkdir(join(dir, "conf"));
    await writeFile(join(dir, "conf", "main.yaml"), "api_keys: {}\n");
    await seed(join(dir, "conf"));
    const [byDir, byFile, byState, none] = await Promise.all([
      tgw(["state", "list", "-f", "conf"], dir),
      tgw(["state", "list", "-f", join("conf", "main.yaml"), "--json"], dir),
      tgw(["state", "list", "--state", join("conf", ".tgw", "state.json"), "--json"], dir),
      tgw(["state", "list"], dir),
    ]);
    expect(byDir.stdout).toContain("api_keys.ci");
    expect(JSON.parse(byFile.stdout).resources).toHaveLength(4);
    expect(JSON.parse(byState.stdout).state).toBe(join("conf", ".tgw", "state.json"));
    expect(none.stdout).toContain("No state at");
  });

  it("reports a corrupt state with its code and no stack trace, exit 1", async () => {
    await mkdir(join(dir, ".tgw"));
    await writeFile(join(dir, ".tgw", "state.json"), "{ not json");
    const run = await tgw(["state", "list"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error \[state_corrupt\]: state \.tgw\/state\.json is not valid JSON/);
    expect(run.stderr).not.toContain("    at ");
  });
});

describe("tgw state show", () => {
  it("shows one record, as text and as stored JSON", async () => {
    await seed();
    const [text, json] = await Promise.all([
      tgw(["state", "show", "tls_certificates.web"], dir),
      tgw(["state", "show", "api_keys.deployer", "--json"], dir),
    ]);
    expect(text.stdout).toBe(
      [
        "address                    tls_certificates.web",
        "kind                       tls_certificate",
        "id                         cert_2f1",
        `fingerprint                sha256:${sha("a")}`,
        `writeOnly.private_key_pem  sha256:${sha("b")}`,
        "appliedAt                  2025-03-01T10:00:00.000Z",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(json.stdout)).toEqual(RECORDS[2]);
  });

  it("fails on an unknown address, suggesting the nearest one", async () => {
    await seed();
    const run = await tgw(["state", "show", "api_keys.cj"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error [usage]: address "api_keys.cj" (did you mean "api_keys.ci"?) not in state ${join(".tgw", "state.json")} (\`tgw state list\` shows the addresses)\n`,
    );
  });
});

describe("tgw state rm", () => {
  it("forgets the addresses, keeps a backup, and explains the ownership marker and re-adoption", async () => {
    const { snapshot } = await seed();
    const run = await tgw(["state", "rm", "api_keys.ci", "edges.https.edghts_1.saml"], dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `Removed api_keys.ci (api_key ak_1) from state ${join(".tgw", "state.json")}.\n`,
    );
    expect(run.stdout).toContain("Removed edges.https.edghts_1.saml (saml /edges/https/edghts_1/saml)");
    expect(run.stdout).toContain("Nothing was deleted");
    expect(run.stdout).toContain(
      'api_keys.ci still carries the ownership marker of stack "shop" in metadata (key "tgw"), so the next plan adopts it again',
    );
    expect(run.stdout).toContain("deletes it if the configuration does not");
    expect(run.stdout).toContain("edges.https.edghts_1.saml: a module is identified by its path");
    const after = await new FileStateStore(join(dir, ".tgw", "state.json")).read();
    expect(after.serial).toBe(2);
    expect(after.lineage).toBe(snapshot.lineage);
    expect(Object.keys(after.resources)).toEqual(["api_keys.deployer", "tls_certificates.web"]);
    expect(JSON.parse(await readFile(join(dir, ".tgw", "state.json.backup"), "utf8")).serial).toBe(1);
  });

  it("removes nothing when one address is unknown", async () => {
    await seed();
    const run = await tgw(["state", "rm", "api_keys.ci", "api_keys.nope", "tunnels.x"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('addresses "api_keys.nope", "tunnels.x" not in state');
    expect(run.stderr).toContain("nothing was changed");
    expect((await new FileStateStore(join(dir, ".tgw", "state.json")).read()).serial).toBe(1);
  });

  it("fails at once naming the holder when the state is locked, and waits with --lock-timeout", async () => {
    const { store } = await seed();
    const unlock = await store.lock({ timeoutMs: 0, holder: "tgw apply" });
    const refused = await tgw(["state", "rm", "api_keys.ci"], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^Error \\[state_locked\\]: state \\.tgw/state\\.json is locked by tgw apply \\(pid ${process.pid} on .+, since [\\d:]+\\); did not wait \\(lock timeout 0\\)\n$`,
      ),
    );
    const waiting = tgw(["state", "rm", "api_keys.ci", "--lock-timeout", "20s"], dir);
    setTimeout(() => void unlock(), 1_000);
    const run = await waiting;
    expect(run.code).toBe(0);
    expect((await store.read()).resources["api_keys.ci"]).toBeUndefined();
  });

  it("says there is no state, and creates nothing, when the state does not exist", async () => {
    const run = await tgw(["state", "rm", "api_keys.ci"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Error [usage]: no state at ${join(".tgw", "state.json")}`);
    expect(await readdir(dir)).toEqual([]);
  });

  it("rejects a malformed --lock-timeout", async () => {
    const run = await tgw(["state", "rm", "api_keys.ci", "--lock-timeout", "soon"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error [usage]: invalid duration "soon" for --lock-timeout: use a number with a unit, e.g. 0, 500ms, 30s, 5m, 1h\n',
    );
  });
});

describe("tgw state mv", () => {
  it("renames an address in the state only (the apply moves its token file), and refuses an address already taken", async () => {
    await seed();
    await mkdir(join(dir, ".tgw", "secrets"), { recursive: true });
    await writeFile(join(dir, ".tgw", "secrets", "ci.token"), "tok\n");
    const taken = await tgw(["state", "mv", "api_keys.ci", "api_keys.deployer"], dir);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("api_keys.deployer is already in state");
    const run = await tgw(["state", "mv", "api_keys.ci", "api_keys.ops"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Moved api_keys.ci to api_keys.ops (api_key ak_1)");
    const after = await new FileStateStore(join(dir, ".tgw", "state.json")).read();
    expect(after.resources["api_keys.ops"]).toMatchObject({ address: "api_keys.ops", id: "ak_1" });
    expect(after.resources["api_keys.ci"]).toBeUndefined();
    expect(run.stdout).not.toContain("token file");
    expect(await readdir(join(dir, ".tgw", "secrets"))).toEqual(["ci.token"]);
  });

  it("moves no token file for a kind without tokens, even one named like a key", async () => {
    await seed();
    await mkdir(join(dir, ".tgw", "secrets"), { recursive: true });
    await writeFile(join(dir, ".tgw", "secrets", "web.token"), "tok\n");
    const run = await tgw(["state", "mv", "tls_certificates.web", "tls_certificates.site"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("token file");
    expect(await readdir(join(dir, ".tgw", "secrets"))).toEqual(["web.token"]);
  });
});

describe("a -f path that does not exist", () => {
  it("is refused by every state subcommand as tgw plan refuses it, touching no state", async () => {
    const { snapshot } = await seed();
    const missing = ["-f", "infr"];
    const plan = await tgw(["plan", ...missing], dir);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toBe(
      "Error [config]: 1 problem in the configuration:\ninfr: no such file or directory\n",
    );
    const commands = [
      ["list"],
      ["show", "api_keys.ci"],
      ["rm", "api_keys.ci"],
      ["mv", "api_keys.ci", "api_keys.ops"],
      ["history"],
      ["restore", "1"],
      ["migrate", "--to", join(dir, "elsewhere.json")],
      // A second -f that does not exist, after one that does.
      ["list", "-f", "."],
    ];
    const runs = await Promise.all(commands.map((args) => tgw(["state", ...args, ...missing], dir)));
    expect(runs.map((run, i) => ({ args: commands[i], code: run.code, stderr: run.stderr }))).toEqual(
      commands.map((args) => ({ args, code: plan.code, stderr: plan.stderr })),
    );
    const after = await new FileStateStore(join(dir, ".tgw", "state.json")).read();
    expect(after.serial).toBe(snapshot.serial);
    expect(Object.keys(after.resources).sort()).toEqual(Object.keys(snapshot.resources).sort());
    expect(await readdir(dir)).toEqual([".tgw"]);
  });
});
