/**
 * Token files written in this thread (the first `IN_THREAD_TOKEN_FILES` of a process) and by the
 * worker thread (the rest, in batches): the same files, mode 0600, no temporary file left, a missing
 * directory made again, an existing file replaced whole, errors with their code and no file left
 * behind, and a slow file on the worker's side does not hold up this thread; how plans show a token file.
 */
import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  IN_THREAD_TOKEN_FILES,
  TokenWriter,
  writeTokenFile,
  writeTokenFileInThread,
} from "../../src/engine/token-writer.js";
import { shownTokenFile } from "../../src/model/token-file.js";

let dir: string;
/** A worker of its own (the process's one is reached only past the in-thread files). */
const worker = new TokenWriter(writeTokenFileInThread);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-token-files-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// The tests run in order: the first one uses up the in-thread files, the others reach the worker.
it("writes many tokens at once, in this thread and then through the worker: each whole, mode 0600", async () => {
  const secrets = join(dir, "many", "secrets");
  const n = IN_THREAD_TOKEN_FILES + 64;
  await Promise.all(
    Array.from({ length: n }, (_, i) => writeTokenFile(join(secrets, `k${i}.token`), `tgw_token_${i}`)),
  );
  const names = (await readdir(secrets)).sort();
  expect(names).toHaveLength(n);
  expect(names.every((name) => name.endsWith(".token"))).toBe(true);
  for (let i = 0; i < n; i++) {
    const file = join(secrets, `k${i}.token`);
    expect(await readFile(file, "utf8")).toBe(`tgw_token_${i}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  }
  expect((await stat(secrets)).mode & 0o777).toBe(0o700);
});

it("the worker makes a removed directory again", async () => {
  const secrets = join(dir, "removed");
  await writeTokenFile(join(secrets, "a.token"), "tgw_a");
  await rm(secrets, { recursive: true });
  await writeTokenFile(join(secrets, "b.token"), "tgw_b");
  expect(await readFile(join(secrets, "b.token"), "utf8")).toBe("tgw_b\n");
});

describe.each([
  ["this thread", () => writeTokenFileInThread],
  ["the worker", () => (path: string, token: string) => worker.write(path, token)],
])("written by %s", (by, writer) => {
  const write = (path: string, token: string) => writer()(path, token);
  const secrets = () => join(dir, "by", by.replace(" ", "-"));

  it("a new token file is created in place, whole, mode 0600: its temporary file is not opened", async () => {
    await mkdir(secrets(), { recursive: true });
    // A FIFO as the temporary file: opening it would wait for a reader.
    execFileSync("mkfifo", [join(secrets(), `new.token.${process.pid}.tmp`)]);
    await write(join(secrets(), "new.token"), "tgw_new");
    await rm(join(secrets(), `new.token.${process.pid}.tmp`));
    expect(await readFile(join(secrets(), "new.token"), "utf8")).toBe("tgw_new\n");
    expect((await stat(join(secrets(), "new.token"))).mode & 0o777).toBe(0o600);
  });

  it("an existing token file is replaced whole; a symlink is replaced, not followed", async () => {
    const target = join(dir, `elsewhere-${by.replace(" ", "-")}.txt`);
    await writeFile(target, "not a token\n");
    await mkdir(secrets(), { recursive: true });
    await writeFile(join(secrets(), "old.token"), "tgw_old\n", { mode: 0o600 });
    await symlink(target, join(secrets(), "link.token"));
    await write(join(secrets(), "old.token"), "tgw_rotated");
    await write(join(secrets(), "link.token"), "tgw_link");
    expect(await readFile(join(secrets(), "old.token"), "utf8")).toBe("tgw_rotated\n");
    expect((await lstat(join(secrets(), "link.token"))).isSymbolicLink()).toBe(false);
    expect(await readFile(join(secrets(), "link.token"), "utf8")).toBe("tgw_link\n");
    expect(await readFile(target, "utf8")).toBe("not a token\n");
    expect((await readdir(secrets())).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});

it("a file the worker cannot write rejects with the system's code", async () => {
  const notDir = join(dir, "plain-file");
  await writeFile(notDir, "x");
  await expect(writeTokenFile(join(notDir, "c.token"), "tgw_c")).rejects.toMatchObject({
    code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/),
  });
});

it("a token file the worker is stuck on does not stop this thread, nor the writes queued behind it", async () => {
  const secrets = join(dir, "slow");
  await writeTokenFile(join(secrets, "warm.token"), "tgw_warm");
  const slow = join(secrets, "slow.token");
  // The file is there, so the worker replaces it through `<file>.<pid>.tmp`: as a FIFO, its open
  // waits for a reader.
  await writeFile(slow, "tgw_old\n", { mode: 0o600 });
  const fifo = `${slow}.${process.pid}.tmp`;
  execFileSync("mkfifo", [fifo]);
  let done = false;
  const writing = writeTokenFile(slow, "tgw_slow").then(() => {
    done = true;
  });
  const next = writeTokenFile(join(secrets, "next.token"), "tgw_next");
  // This thread keeps running (timers fire) while the worker waits for a reader.
  await sleep(50);
  expect(done).toBe(false);
  expect(await readFile(fifo, "utf8")).toBe("tgw_slow\n");
  await writing;
  await next;
  expect(await readFile(join(secrets, "next.token"), "utf8")).toBe("tgw_next\n");
});

it("the worker itself writes the files: its source runs (no fallback to this thread)", async () => {
  const secrets = join(dir, "worker-only");
  const writer = new TokenWriter(() => Promise.reject(new Error("written in this thread")));
  const files = ["a", "b"].map((n) => join(secrets, `${n}.token`));
  await Promise.all(files.map((f, i) => writer.write(f, `tgw_${i}`)));
  for (const [i, f] of files.entries()) expect(await readFile(f, "utf8")).toBe(`tgw_${i}\n`);
  await writer.write(files[0] as string, "tgw_again");
  expect(await readFile(files[0] as string, "utf8")).toBe("tgw_again\n");
});

it("the worker also runs from the sources under tsx (as the CLI tests and bench/watch.ts run tgw)", async () => {
  // tsx keeps function names by wrapping inner functions in a helper the worker's source lacks.
  const file = join(dir, "under-tsx", "a.token");
  const writer = new URL("../../src/engine/token-writer.ts", import.meta.url).href;
  const script = `import { TokenWriter } from ${JSON.stringify(writer)};
    await new TokenWriter(() => Promise.reject(new Error("written in this thread"))).write(${JSON.stringify(file)}, "tgw_tsx");`;
  execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "pipe" });
  expect(await readFile(file, "utf8")).toBe("tgw_tsx\n");
});

it("when the worker dies, the files it was given are written in this thread", async () => {
  const secrets = join(dir, "dead-worker");
  const here: string[] = [];
  const writer = new TokenWriter(async (path, token) => {
    here.push(path);
    await writeTokenFile(path, token);
  }, "process.exit(3)");
  const files = ["a", "b", "c"].map((n) => join(secrets, `${n}.token`));
  await Promise.all(files.map((f, i) => writer.write(f, `tgw_${i}`)));
  expect(here.sort()).toEqual([...files].sort());
  for (const [i, f] of files.entries()) expect(await readFile(f, "utf8")).toBe(`tgw_${i}\n`);
  // Later writes go straight to this thread.
  await writer.write(join(secrets, "d.token"), "tgw_d");
  expect(here).toContain(join(secrets, "d.token"));
});

it("plans show a token file relative to the config directory when it is inside, else as configured", () => {
  const config = join(tmpdir(), "project");
  const cases: [string, string][] = [
    [join(config, ".tgw", "secrets", "ci.token"), join(".tgw", "secrets", "ci.token")],
    [join(config, ".tgw", "secrets", "ops.token"), join(".tgw", "secrets", "ops.token")],
    [join(config, "ci.token"), "ci.token"],
    [join(config, "..", "project", "keys", "a.token"), join("keys", "a.token")],
    [join(tmpdir(), "elsewhere", "ci.token"), join(tmpdir(), "elsewhere", "ci.token")],
    [join(tmpdir(), "project-b", "ci.token"), join(tmpdir(), "project-b", "ci.token")],
    ["relative/ci.token", "relative/ci.token"],
    // Not normalized (a configured path is resolved, but the function takes any): shown normalized.
    [`${config}${sep}keys${sep}..${sep}keys${sep}b.token`, join("keys", "b.token")],
  ];
  // Twice: the second round reads the directories the first one worked out.
  for (let round = 0; round < 2; round++) {
    for (const [configured, shown] of cases) expect(shownTokenFile(configured, config)).toBe(shown);
  }
});
