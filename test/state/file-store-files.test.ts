/**
 * What is particular to the local file store (the shared behaviour is in ./conformance.ts): the file,
 * its format and permissions, atomic replacement, corrupt files, and stale locks.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileStateStore,
  LockTimeoutError,
  resolveStatePath,
  StateConflictError,
  StateCorruptError,
  type StateSnapshot,
} from "../../src/state/index.js";
import { lockIdOf } from "../../src/state/lock-info.js";
import { startLockChild } from "./child.js";
import { record } from "./conformance.js";

const FACTORY = fileURLToPath(new URL("./file-store-factory.ts", import.meta.url));

let dir: string;
let path: string;
let warnings: string[];
const unlocks: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-state-file-"));
  path = join(dir, ".tgw", "state.json");
  warnings = [];
});

afterEach(async () => {
  await Promise.all(unlocks.splice(0).map((u) => u()));
  await rm(dir, { recursive: true, force: true });
});

/** A store on `path`; `stack` null: a store without a stack (inspection). */
const open = (stack: string | null = "web") =>
  new FileStateStore(path, { ...(stack === null ? {} : { stack }), warn: (m) => warnings.push(m) });

async function writeOne(store = open()): Promise<StateSnapshot> {
  const s = await store.read();
  s.resources["api_keys.ci"] = record("api_keys.ci");
  return store.write(s);
}

describe("the state file", () => {
  it("is created with its directory on the first write: file 0600, directory 0700, nothing else left", async () => {
    await writeOne();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, ".tgw"))).mode & 0o777).toBe(0o700);
    expect((await readdir(join(dir, ".tgw"))).sort()).toEqual(["state.json", "state.json.serial"]);
    expect((await stat(`${path}.serial`)).mode & 0o777).toBe(0o600);
  });

  it("is stable, sorted 2-space JSON, whatever the order of the snapshot", async () => {
    const store = open();
    const s = await store.read();
    s.lineage = "8d4e7c1a-0000-4000-8000-000000000000";
    s.resources["tls_certificates.web"] = {
      appliedAt: "2025-01-02T03:04:05.000Z",
      dependsOn: ["z.b", "a.a"],
      writeOnly: { z_key: "c".repeat(64), private_key_pem: "b".repeat(64) },
      fingerprint: "a".repeat(64),
      id: "cert_1",
      kind: "tls_certificate",
      address: "tls_certificates.web",
    };
    s.resources["api_keys.ci"] = record("api_keys.ci");
    await store.write(s);
    expect(await readFile(path, "utf8")).toBe(`{
  "version": 4,
  "lineage": "8d4e7c1a-0000-4000-8000-000000000000",
  "serial": 1,
  "stack": "web",
  "resources": {
    "api_keys.ci": {
      "address": "api_keys.ci",
      "kind": "api_key",
      "id": "ak_api_keysci",
      "fingerprint": "${"a".repeat(64)}",
      "appliedAt": "2025-01-02T03:04:05.000Z"
    },
    "tls_certificates.web": {
      "address": "tls_certificates.web",
      "kind": "tls_certificate",
      "id": "cert_1",
      "fingerprint": "${"a".repeat(64)}",
      "writeOnly": {
        "private_key_pem": "${"b".repeat(64)}",
        "z_key": "${"c".repeat(64)}"
      },
      "dependsOn": [
        "a.a",
        "z.b"
      ],
      "appliedAt": "2025-01-02T03:04:05.000Z"
    }
  }
}
`);
  });

  it("keeps the previous version as state.json.backup", async () => {
    const store = open();
    const first = await writeOne(store);
    const firstText = await readFile(path, "utf8");
    await store.write({ ...first, resources: {} });
    expect(await readFile(`${path}.backup`, "utf8")).toBe(firstText);
    expect((await stat(`${path}.backup`)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, "utf8")).serial).toBe(2);
  });

  it("is replaced atomically: a reader during many writes always reads a whole state", async () => {
    const writer = open();
    const reader = open();
    let snapshot = await writeOne(writer);
    let done = false;
    let reads = 0;
    const readLoop = (async () => {
      while (!done) {
        const s = await reader.read();
        expect(s.serial).toBeGreaterThan(0);
        reads++;
      }
    })();
    for (let i = 0; i < 40; i++) {
      snapshot.resources[`api_keys.k${i}`] = record(`api_keys.k${i}`);
      snapshot = await writer.write(snapshot);
    }
    done = true;
    await readLoop;
    expect(reads).toBeGreaterThan(0);
    expect(snapshot.serial).toBe(41);
  });

  it("is named relative to the current directory when inside it", () => {
    expect(new FileStateStore(join(process.cwd(), ".tgw", "state.json")).location).toBe(
      join(".tgw", "state.json"),
    );
    expect(open().location).toBe(path);
  });
});

describe("a file that is not a state", () => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", '{\n  "version": 1,\n  "serial": \n}', /is not valid JSON \(Unexpected token '\}'/],
    [
      "not JSON, with a position",
      '{"version": 1 "serial": 2}',
      /is not valid JSON \(line 1, column 15: Expected ','/,
    ],
    [
      "merged by Git",
      '{\n<<<<<<< HEAD\n  "serial": 3,\n=======\n  "serial": 4,\n>>>>>>> other\n}',
      /has Git merge conflict markers \(line 2\)/,
    ],
    ["empty", "", /is empty/],
    [
      "a bad digest",
      JSON.stringify({
        version: 1,
        lineage: "l",
        serial: 1,
        stack: "web",
        resources: { "api_keys.ci": { ...record("api_keys.ci"), fingerprint: "xyz" } },
      }),
      /resources\["api_keys\.ci"\]\.fingerprint: must be a SHA-256 digest/,
    ],
    [
      "missing resources",
      JSON.stringify({ version: 1, lineage: "l", serial: 1, stack: "web" }),
      /resources: missing/,
    ],
    [
      "of a newer format",
      JSON.stringify({ version: 5, lineage: "l", serial: 1, stack: "web", resources: {}, extra: 1 }),
      /written by a newer tgw \(state format version 5; this tgw reads version 4\)/,
    ],
  ];

  it.each(cases)(
    "%s: read and write fail naming the file and the problem; the file is kept",
    async (_, text, why) => {
      await mkdir(join(dir, ".tgw"));
      await writeFile(path, text);
      const store = open();
      const err = await store.read().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateCorruptError);
      expect((err as StateCorruptError).code).toBe("state_corrupt");
      expect((err as Error).message).toContain(`state ${path} `);
      expect((err as Error).message).toMatch(why);
      // A newer tgw's state is not damaged: no advice to restore a backup or move it away.
      if (why.source.includes("newer")) expect((err as Error).message).not.toMatch(/backup|move both away/);
      else expect((err as Error).message).toContain(`restore ${path}.backup`);
      const fresh = { version: 1, lineage: "l", serial: 0, stack: "web", resources: {} } as const;
      await expect(store.write(fresh)).rejects.toBeInstanceOf(StateCorruptError);
      expect(await readFile(path, "utf8")).toBe(text);
    },
  );

  it("of another stack is refused when the store has a stack, and read when it has none", async () => {
    await writeOne(open("payments"));
    const err = await open("web")
      .read()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateConflictError);
    expect((err as Error).message).toContain('belongs to stack "payments", not "web"');
    expect((await open(null).read()).stack).toBe("payments");
  });

  it("that was deleted after it was read is not silently recreated", async () => {
    const store = open();
    const s = await writeOne(store);
    await rm(path);
    await expect(store.write(s)).rejects.toThrow(/was deleted since it was read \(at serial 1\)/);
  });
});

describe("the lock file", () => {
  it("describes its holder next to it while held, and is removed with it on unlock", async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const unlock = await open().lock({ timeoutMs: 0, holder: "tgw apply" });
    const info = JSON.parse(await readFile(`${path}.lock-info`, "utf8"));
    expect(info).toMatchObject({ holder: "tgw apply", pid: process.pid, hostname: hostname() });
    expect(Date.parse(info.since)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(info.since)).toBeLessThanOrEqual(Date.now());
    await unlock();
    expect(await readdir(join(dir, ".tgw"))).toEqual([]);
  });

  it("makes a write by a store that does not hold it wait for the holder", async () => {
    const holder = open();
    const base = await writeOne(holder);
    const unlock = await holder.lock({ timeoutMs: 0, holder: "tgw apply" });
    let released = 0;
    setTimeout(() => {
      released = Date.now();
      void unlock();
    }, 300);
    const written = await open().write({ ...base, resources: {} });
    expect(released).toBeGreaterThan(0);
    expect(written.serial).toBe(2);
  });

  it("of a process that was killed is taken over at once, with a warning naming it", async () => {
    const child = startLockChild({
      factory: FACTORY,
      location: path,
      stack: "web",
      name: "killed",
      holdMs: -1,
      timeoutMs: 0,
    });
    await child.waitFor("ready");
    child.go();
    await child.waitFor("wrote");
    const pid = child.process.pid as number;
    child.process.kill("SIGKILL");
    await child.exited;

    const store = open();
    const busy = await store.read().then(() => "read ok");
    expect(busy).toBe("read ok");
    unlocks.push(await store.lock({ timeoutMs: 0, holder: "tgw apply" }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `took over the lock of state ${path} from lock-child killed (pid ${pid} on`,
    );
    expect(warnings[0]).toContain("its process is no longer running");
    expect(JSON.parse(await readFile(`${path}.lock-info`, "utf8")).pid).toBe(process.pid);
  });

  async function fakeHolder(opts: { host: string; ageMs: number }): Promise<void> {
    await mkdir(join(dir, ".tgw", "state.json.lock"), { recursive: true });
    const lockStat = await stat(`${path}.lock`);
    const since = new Date(Date.now() - opts.ageMs);
    await writeFile(
      `${path}.lock-info`,
      JSON.stringify({
        holder: "tgw apply",
        pid: 4242,
        hostname: opts.host,
        since: since.toISOString(),
        lockId: lockIdOf(lockStat),
      }),
    );
    await utimes(`${path}.lock`, since, since);
  }

  it("of another host is waited for while it is refreshed, and the message names that host", async () => {
    await fakeHolder({ host: "build-agent-7", ageMs: 0 });
    const err = await open()
      .lock({ timeoutMs: 200, holder: "tgw apply" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockTimeoutError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^state ${path} is locked by tgw apply \\(pid 4242 on build-agent-7, since \\d\\d:\\d\\d:\\d\\d\\); waited 0\\.2s$`,
      ),
    );
    expect(warnings).toEqual([]);
  });

  it("taken an instant ago is named in the message even before its holder has described itself", async () => {
    // The holder creates the lock directory, then writes its description: a taker that gives up in
    // between waits briefly for the description instead of saying nobody described the lock.
    await mkdir(join(dir, ".tgw", "state.json.lock"), { recursive: true });
    const lockStat = await stat(`${path}.lock`);
    setTimeout(() => {
      void writeFile(
        `${path}.lock-info`,
        JSON.stringify({
          holder: "tgw apply",
          pid: 4242,
          hostname: "build-agent-7",
          since: new Date().toISOString(),
          lockId: lockIdOf(lockStat),
        }),
      );
    }, 100);
    const err = await open()
      .lock({ timeoutMs: 0, holder: "tgw apply" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockTimeoutError);
    expect((err as Error).message).toMatch(/is locked by tgw apply \(pid 4242 on build-agent-7, since/);
  });

  it("that is no longer refreshed is taken over as stale, with a warning", async () => {
    await fakeHolder({ host: "build-agent-7", ageMs: 60_000 });
    unlocks.push(await open().lock({ timeoutMs: 0, holder: "tgw apply" }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("from tgw apply (pid 4242 on build-agent-7, since");
    expect(warnings[0]).toContain("it had not refreshed the lock for over 10s");
  });
});

describe("resolveStatePath", () => {
  it("uses --state, else .tgw/state.json beside the first -f (a directory or a file's directory), else in cwd", async () => {
    await mkdir(join(dir, "conf"));
    await writeFile(join(dir, "conf", "main.yaml"), "");
    expect(resolveStatePath({ cwd: dir })).toBe(join(dir, ".tgw", "state.json"));
    expect(resolveStatePath({ cwd: dir, config: ["conf", "other"] })).toBe(
      join(dir, "conf", ".tgw", "state.json"),
    );
    expect(resolveStatePath({ cwd: dir, config: ["conf/main.yaml"] })).toBe(
      join(dir, "conf", ".tgw", "state.json"),
    );
    expect(resolveStatePath({ cwd: dir, state: "s.json", config: ["conf"] })).toBe(join(dir, "s.json"));
  });
});
