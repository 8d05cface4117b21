import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileWatcher } from "../../src/watch/file-watcher.js";

let dir: string;
let outside: string;
let watcher: FileWatcher | undefined;
let batches: { files: string[]; at: number }[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tgw-watch-fw-"));
  outside = mkdtempSync(join(tmpdir(), "tgw-watch-fw-out-"));
  writeFileSync(join(dir, "main.yaml"), "stack: s\n");
  mkdirSync(join(dir, ".tgw"));
  batches = [];
});

afterEach(async () => {
  await watcher?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function start(debounceMs = 200): Promise<FileWatcher> {
  watcher = new FileWatcher({
    roots: [dir],
    debounceMs,
    onChange: (files) => batches.push({ files, at: performance.now() }),
  });
  await watcher.ready();
  return watcher;
}

describe("file watcher", () => {
  it("reports a burst of writes as one change, after the debounce", async () => {
    // A debounce far longer than the gaps between writes, so that a loaded machine's pauses stay inside it.
    await start(1_000);
    const firstWrite = performance.now();
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(dir, "main.yaml"), `stack: s${i}\n`);
      await sleep(40);
    }
    while (batches.length === 0) await sleep(20);
    await sleep(300);
    expect(batches.map((b) => b.files)).toEqual([[join(dir, "main.yaml")]]);
    // Held for the quiet period at least (measured from the first write: chokidar may fold the last
    // write's event into an earlier one; timers never fire early, 2 ms allow for the clock's granularity).
    expect((batches[0]?.at ?? 0) - firstWrite).toBeGreaterThanOrEqual(1_000 - 2);
  });

  it("sees config files added to the directory, and ignores the state folder and other files", async () => {
    await start(100);
    writeFileSync(join(dir, ".tgw", "state.json"), "{}");
    writeFileSync(join(dir, "notes.txt"), "hello");
    writeFileSync(join(dir, ".main.yaml.swp"), "x");
    await sleep(400);
    expect(batches).toEqual([]);
    writeFileSync(join(dir, "keys.yml"), "api_keys: {}\n");
    await sleep(400);
    expect(batches.map((b) => b.files)).toEqual([[join(dir, "keys.yml")]]);
  });

  it("follows files outside the directory named by setFiles, and drops ones no longer named", async () => {
    const w = await start(100);
    const pem = join(outside, "cert.pem");
    const old = join(outside, "old.pem");
    writeFileSync(pem, "a");
    writeFileSync(old, "a");
    w.setFiles([join(dir, "main.yaml"), pem, old]);
    await sleep(300); // chokidar needs a moment to set up the new watches
    writeFileSync(pem, "b");
    await sleep(400);
    expect(batches.map((b) => b.files)).toEqual([[pem]]);
    w.setFiles([join(dir, "main.yaml"), pem]);
    await sleep(100);
    writeFileSync(old, "b");
    await sleep(400);
    expect(batches).toHaveLength(1);
  });
});
