/**
 * `tgw watch -f cdktf.out/stacks/<stack>`: `cdktf synth` deletes and re-creates `cdktf.out/`, and the
 * watcher must still see the new `cdk.tf.json` (it also watches from the CDKTF project directory).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { FileWatcher } from "../../src/watch/file-watcher.js";

let project: string;
let watcher: FileWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  rmSync(project, { recursive: true, force: true });
});

function synth(text: string): void {
  mkdirSync(join(project, "cdktf.out", "stacks", "s"), { recursive: true });
  writeFileSync(join(project, "cdktf.out", "stacks", "s", "cdk.tf.json"), text);
  writeFileSync(join(project, "cdktf.out", "manifest.json"), "{}");
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

it("sees a stack re-synthesized after cdktf.out/ was deleted", async () => {
  project = mkdtempSync(join(tmpdir(), "tgw-watch-cdktf-"));
  synth("{}");
  const stackFile = join(project, "cdktf.out", "stacks", "s", "cdk.tf.json");
  const batches: string[][] = [];
  watcher = new FileWatcher({
    roots: [join(project, "cdktf.out", "stacks", "s")],
    debounceMs: 100,
    onChange: (files) => batches.push(files),
  });
  await watcher.ready();

  rmSync(join(project, "cdktf.out"), { recursive: true });
  await until(() => batches.length === 1, "the deletion");
  synth('{"resource": {}}');
  await until(() => batches.length === 2, "the new stack file");
  expect(batches).toEqual([[stackFile], [stackFile]]);
  synth('{"resource": {"x": {}}}');
  await until(() => batches.length === 3, "a second synth");
});
