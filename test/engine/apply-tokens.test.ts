/**
 * Token files and the calls in flight: an API key's token is written once its create call has freed
 * its place among the `parallelism` calls, so the next call does not wait for the disk (a token file
 * whose open blocks, a FIFO without a reader, stands for a slow disk).
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { reconcile } from "../../src/engine/index.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

it("sends the next create while a token file is still being written (parallelism 1)", async () => {
  const secrets = join(bench.dir, "slow-disk");
  await mkdir(secrets, { recursive: true });
  const slow = join(secrets, "a.token");
  // A sidecar is there already (left by a crash), so writeTokenFile replaces it through
  // `<file>.json.<pid>.tmp` before writing the token: as a FIFO, its open waits for a reader.
  await writeFile(`${slow}.json`, "{}\n", { mode: 0o600 });
  const fifo = `${slow}.json.${process.pid}.tmp`;
  execFileSync("mkfifo", [fifo]);
  bench.reset();
  const applying = reconcile({
    desired: desired(
      [
        res("api_keys.a", { description: "a" }, { options: { prevent_destroy: false, token_file: slow } }),
        res(
          "api_keys.b",
          { description: "b" },
          { options: { prevent_destroy: false, token_file: join(secrets, "b.token") } },
        ),
      ],
      "marker",
      bench.dir,
    ),
    api: bench.api,
    store: bench.store,
    options: { parallelism: 1 },
  });
  const posts = () => bench.calls().filter((c) => c === "POST /api_keys").length;
  for (let waited = 0; posts() < 2 && waited < 5000; waited += 20) await sleep(20);
  const sentWhileBlocked = posts();
  // Let the first token through (its sidecar first).
  await readFile(fifo, "utf8");
  await applying;
  expect(sentWhileBlocked).toBe(2);
  expect(await readFile(slow, "utf8")).toMatch(/^\S+\n$/);
  expect(await readFile(join(secrets, "b.token"), "utf8")).toMatch(/^\S+\n$/);
}, 30_000);

it("settle (onWriting) waits until an answer received has its token file and its record", async () => {
  const secrets = join(bench.dir, "settle-disk");
  await mkdir(secrets, { recursive: true });
  const slow = join(secrets, "a.token");
  await writeFile(`${slow}.json`, "{}\n", { mode: 0o600 });
  const fifo = `${slow}.json.${process.pid}.tmp`;
  execFileSync("mkfifo", [fifo]);
  bench.reset();
  let settle: (() => Promise<void>) | undefined;
  const applying = reconcile({
    desired: desired(
      [
        res("api_keys.sa", { description: "a" }, { options: { prevent_destroy: false, token_file: slow } }),
        res(
          "api_keys.sb",
          { description: "b" },
          { options: { prevent_destroy: false, token_file: join(secrets, "b.token") } },
        ),
      ],
      "marker",
      bench.dir,
    ),
    api: bench.api,
    store: bench.store,
    options: { parallelism: 1 },
    onWriting: (s) => {
      settle = s;
    },
  });
  const posts = () => bench.calls().filter((c) => c === "POST /api_keys").length;
  // Until then (no deadline here: the test's timeout bounds a wait that never ends).
  while (posts() < 2) await sleep(20);
  // sa's answer came; its token file is blocked: settle waits for it (and its record).
  let settled = false;
  const settling = (settle as () => Promise<void>)().then(() => {
    settled = true;
  });
  await sleep(200);
  expect(settled).toBe(false);
  await readFile(fifo, "utf8");
  await settling;
  const token = await readFile(slow, "utf8");
  const state = await bench.store.read();
  expect(state.resources["api_keys.sa"]?.tokenDelivered).toMatchObject({ to: "file" });
  expect(bench.server.keyOf(token.trim())).toBe(state.resources["api_keys.sa"]?.id);
  await applying;
}, 30_000);
