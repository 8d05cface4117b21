/**
 * The journal of the file store (docs/state.md > The journal): writes append only what changed, every
 * read (with or without the lock) sees the file and the journal, a torn last line is ignored and
 * reported, a damaged earlier line is never skipped, and the journal is folded into the file at unlock
 * and when it grows past the file.
 */
import { constants } from "node:fs";
import { appendFile, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileStateStore,
  StateConflictError,
  StateCorruptError,
  type StateRecord,
  type StateSnapshot,
} from "../../src/state/index.js";
import { record } from "./conformance.js";

let dir: string;
let path: string;
let debug: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-state-journal-"));
  path = join(dir, ".tgw", "state.json");
  debug = [];
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () => new FileStateStore(path, { stack: "web", warn: () => {}, debug: (m) => debug.push(m) });
const header = (s: StateSnapshot) => {
  const { resources: _, ...h } = s;
  return h;
};
const journalLines = async () => (await readFile(`${path}.journal`, "utf8")).split("\n").filter(Boolean);

/** A store with a first state of one record written (the whole file), and that state. */
async function started(): Promise<{ store: FileStateStore; base: StateSnapshot }> {
  const store = open();
  const empty = await store.read();
  const first = await store.writeChanges(header(empty), { set: [record("api_keys.a")], removed: [] });
  return { store, base: { ...empty, ...first, resources: { "api_keys.a": record("api_keys.a") } } };
}

describe("the state journal", () => {
  it("writes the first state whole, then appends only the changed records, and every reader sees both", async () => {
    const { store, base } = await started();
    expect((await readdir(join(dir, ".tgw"))).sort()).toEqual(["state.json", "state.json.serial"]);
    const v2 = await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
    const listing = { counts: { api_key: 3 }, unrecorded: ["api_key"] };
    const v3 = await store.writeChanges(
      { ...header(base), serial: v2.serial, listing },
      { set: [record("api_keys.c")], removed: ["api_keys.a"] },
    );
    expect(v3).toEqual({ lineage: base.lineage, serial: 3 });
    // The file is untouched; the journal holds one line per write, with only what it changed.
    expect(JSON.parse(await readFile(path, "utf8")).serial).toBe(1);
    const lines = (await journalLines()).map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.serial, Object.keys(l.set), l.removed])).toEqual([
      [2, ["api_keys.b"], []],
      [3, ["api_keys.c"], ["api_keys.a"]],
    ]);
    expect((await stat(`${path}.journal`)).mode & 0o777).toBe(0o600);
    // A reader without the lock (tgw state list, plan -lock=false) sees the file and the journal.
    const read = await open().read();
    expect(read.serial).toBe(3);
    expect(Object.keys(read.resources).sort()).toEqual(["api_keys.b", "api_keys.c"]);
    expect(read.resources["api_keys.c"]).toEqual(record("api_keys.c"));
    // Every entry carries the listing whole, as it carries the API.
    expect(read.listing).toEqual(listing);
    expect(base.listing).toBeUndefined();
  });

  it("refuses a write from an older serial, as a whole write does", async () => {
    const { store, base } = await started();
    await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
    await expect(
      open().writeChanges(header(base), { set: [record("api_keys.x")], removed: [] }),
    ).rejects.toBeInstanceOf(StateConflictError);
    // A whole write from the serial the journal reached is accepted and replaces both.
    const now = await open().read();
    const whole = await open().write({
      ...now,
      resources: { ...now.resources, "api_keys.d": record("api_keys.d") },
    });
    expect(whole.serial).toBe(3);
    expect(await readdir(join(dir, ".tgw"))).not.toContain("state.json.journal");
    expect(Object.keys((await open().read()).resources).sort()).toEqual([
      "api_keys.a",
      "api_keys.b",
      "api_keys.d",
    ]);
  });

  it("never takes a secret: records are checked like the state file's", async () => {
    const { store, base } = await started();
    const pem = "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----";
    const bad = [
      { ...record("api_keys.t"), token: "tok_secret" } as StateRecord,
      { ...record("api_keys.p"), id: pem },
      { ...record("api_keys.w"), writeOnly: { private_key_pem: pem } },
    ];
    for (const r of bad) {
      await expect(store.writeChanges(header(base), { set: [r], removed: [] })).rejects.toThrow(
        /refusing to write an invalid state/,
      );
    }
    expect((await readdir(join(dir, ".tgw"))).sort()).toEqual(["state.json", "state.json.serial"]);
  });

  it("ignores a torn last line (reported at debug level), keeps every earlier entry, and appends after the last whole one", async () => {
    const { store, base } = await started();
    await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
    // A crash in the middle of the next append.
    const torn = (await journalLines())[0]?.replace('"serial":2', '"serial":3').slice(0, 40) ?? "";
    await appendFile(`${path}.journal`, torn);
    const read = await open().read();
    expect(read.serial).toBe(2);
    expect(Object.keys(read.resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);
    expect(debug.join("\n")).toMatch(/ignored the last journal line/);
    // The next writer cuts the torn line off before appending.
    const writer = open();
    await writer.writeChanges(header(read), { set: [record("api_keys.c")], removed: [] });
    expect((await journalLines()).map((l) => JSON.parse(l).serial)).toEqual([2, 3]);
    expect(Object.keys((await open().read()).resources).sort()).toEqual([
      "api_keys.a",
      "api_keys.b",
      "api_keys.c",
    ]);
  });

  it("refuses to read past a damaged line that is not the last: an entry is never dropped silently", async () => {
    const { store, base } = await started();
    const v2 = await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
    await store.writeChanges(
      { ...header(base), serial: v2.serial },
      { set: [record("api_keys.c")], removed: [] },
    );
    const lines = await journalLines();
    await writeFile(`${path}.journal`, `${(lines[0] as string).slice(0, 30)}\n${lines[1]}\n`);
    const err = await open()
      .read()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateCorruptError);
    expect(String((err as Error).message)).toMatch(/journal line 1/);
    // A line lost from the middle: the next one does not follow the file.
    await writeFile(`${path}.journal`, `${lines[1]}\n`);
    await expect(open().read()).rejects.toThrow(/serial 3, but the state is at serial 1/);
  });

  it("is folded into the file when the lock is released: same serial and records, journal gone, backup kept", async () => {
    const store = open();
    const unlock = await store.lock({ timeoutMs: 0, holder: "test" });
    const empty = await store.read();
    let v = await store.writeChanges(header(empty), { set: [record("api_keys.a")], removed: [] });
    for (const name of ["b", "c", "d"]) {
      v = await store.writeChanges(
        { ...header(empty), ...v },
        { set: [record(`api_keys.${name}`)], removed: [] },
      );
    }
    expect(await journalLines()).toHaveLength(3);
    const before = await open().read();
    await unlock();
    expect((await readdir(join(dir, ".tgw"))).sort()).toEqual([
      "state.json",
      "state.json.backup",
      "state.json.serial",
    ]);
    const file = JSON.parse(await readFile(path, "utf8")) as StateSnapshot;
    expect(file).toEqual(before);
    expect(file.serial).toBe(4);
    expect(JSON.parse(await readFile(`${path}.backup`, "utf8")).serial).toBe(1);
  });

  it("is folded into the file once it is longer than the file (and 1 MiB): a write costs what it changes", async () => {
    const { store, base } = await started();
    let v: { lineage: string; serial: number } = base;
    let compacted = false;
    // 1,000 records of about 250 bytes a write: past 1 MiB after five writes.
    for (let w = 0; w < 6 && !compacted; w++) {
      const set = Array.from({ length: 1000 }, (_, i) => record(`api_keys.w${w}-${i}`));
      v = await store.writeChanges({ ...header(base), ...v }, { set, removed: [] });
      compacted = !(await readdir(join(dir, ".tgw"))).includes("state.json.journal");
    }
    expect(compacted).toBe(true);
    const file = JSON.parse(await readFile(path, "utf8")) as StateSnapshot;
    expect(file.serial).toBe(v.serial);
    expect(Object.keys(file.resources).length).toBe(1 + 1000 * (v.serial - 1));
  });

  it("skips entries already in the file (a compaction killed before it removed the journal)", async () => {
    const { store, base } = await started();
    await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
    const journal = await readFile(`${path}.journal`);
    const whole = await open().read();
    await new FileStateStore(path, { stack: "web" }).write(whole); // serial 3, journal removed
    await writeFile(`${path}.journal`, journal, { mode: 0o600 }); // as if the removal never happened
    const read = await open().read();
    expect(read.serial).toBe(3);
    expect(Object.keys(read.resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);
  });
});

// Linux shows an open file's flags in /proc: the journal's writes are synchronous (O_DSYNC), so an
// append resolves only once its line is on disk, without an fdatasync call after it.
describe.runIf(process.platform === "linux")("the journal's durability", () => {
  it("is open with O_DSYNC while the lock holder appends", async () => {
    const { store, base } = await started();
    const unlock = await store.lock({ timeoutMs: 0, holder: "test" });
    try {
      await store.writeChanges(header(base), { set: [record("api_keys.b")], removed: [] });
      const journal = `${path}.journal`;
      let flags: number | undefined;
      for (const fd of await readdir("/proc/self/fd")) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
        if (target !== journal) continue;
        const info = await readFile(`/proc/self/fdinfo/${fd}`, "utf8");
        flags = Number.parseInt(/^flags:\s*([0-7]+)/m.exec(info)?.[1] ?? "", 8);
      }
      expect(flags).toBeDefined();
      expect((flags as number) & constants.O_DSYNC).toBe(constants.O_DSYNC);
      expect((flags as number) & constants.O_APPEND).toBe(constants.O_APPEND);
    } finally {
      await unlock();
    }
  });
});

describe("a long-lived store (tgw watch) after another process wrote the state", () => {
  it("reads what the other process wrote, and its next locked write follows it (no state_conflict)", async () => {
    // The watch's store: locked writes through the journal, compacted at unlock.
    const watch = open();
    const empty = await watch.read();
    let unlock = await watch.lock({ timeoutMs: 0, holder: "tgw watch" });
    const first = await watch.writeChanges(header(empty), { set: [record("api_keys.a")], removed: [] });
    const second = await watch.writeChanges(
      { ...header(empty), ...first },
      { set: [record("api_keys.b")], removed: [] },
    );
    await unlock();
    // `tgw state rm api_keys.a` in another process.
    const cli = open();
    const read = await cli.read();
    expect(read.serial).toBe(second.serial);
    delete read.resources["api_keys.a"];
    const removed = await cli.write(read);
    // The watch's next reconcile: read without the lock, then lock and write from what it read.
    const now = await watch.read();
    expect(now.serial).toBe(removed.serial);
    unlock = await watch.lock({ timeoutMs: 0, holder: "tgw watch" });
    try {
      const next = await watch.writeChanges(header(now), { set: [record("api_keys.c")], removed: [] });
      expect(next.serial).toBe(removed.serial + 1);
    } finally {
      await unlock();
    }
    expect(Object.keys((await open().read()).resources).sort()).toEqual(["api_keys.b", "api_keys.c"]);
  });
});
