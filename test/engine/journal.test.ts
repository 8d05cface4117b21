/**
 * The engine's state journal (src/engine/journal.ts) over the file store: each write hands the store
 * only the records changed since the last one (no copy or rewrite of the whole state per result), and
 * what is read back is what was recorded.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { StateJournal } from "../../src/engine/journal.js";
import { FileStateStore } from "../../src/state/index.js";
import { record } from "../state/conformance.js";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-engine-journal-"));
  path = join(dir, "state.json");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("writes each result once, as the records that changed, coalescing results that arrive during a write", async () => {
  const store = new FileStateStore(path, { stack: "web", warn: () => {} });
  const journal = new StateJournal(store, await store.read());
  await journal.set(record("api_keys.first")); // the first write creates the file
  const written: number[] = [];
  const sets = Array.from({ length: 60 }, (_, i) => journal.set(record(`api_keys.k${i}`)));
  await Promise.all(sets);
  await journal.update((records) => {
    delete records["api_keys.k0"];
    records["api_keys.k1"] = record("api_keys.k1", { id: "ak_moved" });
  });
  await journal.remove("api_keys.k2");
  await journal.flush();

  const entries = (await readFile(`${path}.journal`, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { serial: number; set: Record<string, unknown>; removed: string[] });
  for (const e of entries) written.push(e.serial);
  // Fewer writes than results (coalesced), and every record in exactly one of the first writes.
  expect(entries.length).toBeLessThan(60);
  const setOnce = entries.slice(0, -2).flatMap((e) => Object.keys(e.set));
  expect(setOnce.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `api_keys.k${i}`).sort());
  expect(entries.at(-2)).toMatchObject({
    set: { "api_keys.k1": { id: "ak_moved" } },
    removed: ["api_keys.k0"],
  });
  expect(entries.at(-1)).toMatchObject({ set: {}, removed: ["api_keys.k2"] });
  expect(written).toEqual(written.map((_, i) => i + 2));

  const read = await new FileStateStore(path, { stack: "web" }).read();
  expect(read).toEqual(journal.snapshot);
  expect(Object.keys(read.resources)).toHaveLength(59);
  expect(read.resources["api_keys.k1"]?.id).toBe("ak_moved");
});

it("gathers the results of its gathering time into one write, and flush() ends the wait at once", async () => {
  const store = new FileStateStore(path, { stack: "web", warn: () => {} });
  // A minute: were flush() not to end the wait, this test would time out.
  const journal = new StateJournal(store, await store.read(), undefined, undefined, { gatherMs: 60_000 });
  const first = journal.set(record("api_keys.first")); // the first write creates the file
  await journal.flush();
  await first;
  const sets = Array.from({ length: 20 }, (_, i) => journal.set(record(`api_keys.k${i}`)));
  await journal.flush();
  await Promise.all(sets);

  const entries = (await readFile(`${path}.journal`, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { serial: number; set: Record<string, unknown> });
  expect(entries).toHaveLength(1);
  expect(entries[0]?.serial).toBe(2);
  expect(Object.keys(entries[0]?.set ?? {}).sort()).toEqual(
    Array.from({ length: 20 }, (_, i) => `api_keys.k${i}`).sort(),
  );
  expect(await new FileStateStore(path, { stack: "web" }).read()).toEqual(journal.snapshot);
});

it("writes gathered results without a flush() once its gathering time is over", async () => {
  const store = new FileStateStore(path, { stack: "web", warn: () => {} });
  const journal = new StateJournal(store, await store.read(), undefined, undefined, { gatherMs: 5 });
  await journal.set(record("api_keys.first"));
  await Promise.all([journal.set(record("api_keys.a")), journal.remove("api_keys.first")]);
  const read = await new FileStateStore(path, { stack: "web" }).read();
  expect(Object.keys(read.resources)).toEqual(["api_keys.a"]);
  expect(read.serial).toBe(2);
});

it("starts a write the caller waits for at once, without its gathering time", async () => {
  const store = new FileStateStore(path, { stack: "web", warn: () => {} });
  // A minute: a write that waited for it would time this test out.
  const journal = new StateJournal(store, await store.read(), undefined, undefined, { gatherMs: 60_000 });
  await journal.set(record("api_keys.first"), { now: true });
  const gathered = journal.set(record("api_keys.later"));
  await journal.update((records) => delete records["api_keys.first"], { now: true });
  await gathered; // written by the same write as the update
  const read = await new FileStateStore(path, { stack: "web" }).read();
  expect(Object.keys(read.resources)).toEqual(["api_keys.later"]);
  expect(read.serial).toBe(2);
});

it("writes results noted without a promise (note) like set's, gathered and flushed", async () => {
  const store = new FileStateStore(path, { stack: "web", warn: () => {} });
  // A minute: only flush() ends the gathering, so all the notes go in one write.
  const journal = new StateJournal(store, await store.read(), undefined, undefined, { gatherMs: 60_000 });
  await journal.set(record("api_keys.first"), { now: true });
  for (let i = 0; i < 30; i++) journal.note(record(`api_keys.k${i}`));
  journal.note(record("api_keys.k0", { id: "ak_again" })); // the last note of an address wins
  expect(Object.keys(journal.records)).toHaveLength(31);
  await journal.flush();
  expect(journal.failed).toBe(false);

  const entries = (await readFile(`${path}.journal`, "utf8")).split("\n").filter(Boolean);
  expect(entries).toHaveLength(1);
  const read = await new FileStateStore(path, { stack: "web" }).read();
  expect(read).toEqual(journal.snapshot);
  expect(Object.keys(read.resources)).toHaveLength(31);
  expect(read.resources["api_keys.k0"]?.id).toBe("ak_again");
  expect(read.serial).toBe(2);
});
