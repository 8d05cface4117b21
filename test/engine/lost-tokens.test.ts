/**
 * API key tokens that can never be shown again are reported (engine `token_lost`, the CLI's closing
 * warning), and token writes a killed apply left in temporary files are finished, not lost; stale
 * temporary state files are removed (docs/plan.md > Lost tokens).
 */
import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lostTokenWarning } from "../../src/cli/render/progress.js";
import { type EngineEvent, type ReconcileOptions, reconcile } from "../../src/engine/index.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const keys = [res("api_keys.ci", { description: "CI" }), res("api_keys.ops", { description: "ops" })];
const secrets = () => join(bench.dir, ".tgw", "secrets");
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid as number;

async function run(options: ReconcileOptions) {
  const events: EngineEvent[] = [];
  await reconcile({
    desired: desired(keys, "marker", bench.dir),
    api: bench.api,
    store: bench.store,
    options,
    onEvent: (e) => events.push(e),
  });
  return events;
}
const lost = (events: EngineEvent[]) => events.filter((e) => e.type === "token_lost");

describe("lost tokens", () => {
  it("a key adopted through its marker after a lost state and a lost token file is reported, by apply and by later plans", async () => {
    expect(lost(await run({ mode: "apply" }))).toEqual([]);
    const id = (await bench.store.read()).resources["api_keys.ci"]?.id;
    // The crash: the state write and the token file never happened.
    await rm(join(secrets(), "ci.token"));
    await bench.loseState();
    const applied = await run({ mode: "apply", takeover: true });
    expect(lost(applied)).toEqual([
      { type: "token_lost", address: "api_keys.ci", id, file: ".tgw/secrets/ci.token" },
    ]);
    expect(lost(await run({ mode: "plan" }))).toHaveLength(1);
    expect(
      lostTokenWarning([{ address: "api_keys.ci", id: id as string, file: ".tgw/secrets/ci.token" }], {
        yellow: (s: string) => s,
        bold: (s: string) => s,
      } as never),
    ).toContain("add token_kept_elsewhere: true to the key");
  });

  it("an empty token file of a key adopted through its marker (a kill between its creation and the write) is a lost token", async () => {
    await run({ mode: "apply" });
    const id = (await bench.store.read()).resources["api_keys.ops"]?.id;
    const token = await readFile(join(secrets(), "ops.token"), "utf8");
    await writeFile(join(secrets(), "ops.token"), "");
    await bench.loseState();
    const planned = lost(await run({ mode: "plan", takeover: true }));
    expect(planned).toContainEqual({
      type: "token_lost",
      address: "api_keys.ops",
      id,
      file: ".tgw/secrets/ops.token",
    });
    // A whole token its sidecar does not describe, in the file the sidecar says was this key's: lost too.
    await writeFile(join(secrets(), "ops.token"), "tgw_ops\n");
    expect(lost(await run({ mode: "plan", takeover: true })).map((e) => e.address)).toContain("api_keys.ops");
    // Its own token again: not lost (and the state records the key again for the next test).
    await writeFile(join(secrets(), "ops.token"), token);
    expect(lost(await run({ mode: "apply", takeover: true })).map((e) => e.address)).not.toContain(
      "api_keys.ops",
    );
  });

  it("a whole token left in a temporary file by a killed apply is moved into place; a partial one and stale state files are removed", async () => {
    const pid = deadPid();
    await writeFile(join(secrets(), `ci.token.${pid}.tmp`), "tok_whole\n", { mode: 0o600 });
    await writeFile(join(secrets(), `ops.token.${pid}.tmp`), "tok_half", { mode: 0o600 });
    await mkdir(join(bench.dir, ".tgw"), { recursive: true });
    await writeFile(join(bench.dir, ".tgw", `.state.json.${pid}.0a1b2c3d.tmp`), "{");
    const events = await run({ mode: "apply" });
    expect(events).toContainEqual({ type: "token_saved", address: "api_keys.ci" });
    // Saved, and then checked: the sidecar left beside it names the key with another token's digest
    // (the key's own token was lost above).
    expect(lost(events).map((e) => e.address)).toEqual(["api_keys.ci"]);
    expect(await readFile(join(secrets(), "ci.token"), "utf8")).toBe("tok_whole\n");
    expect((await readdir(secrets())).sort()).toEqual([
      "ci.token",
      "ci.token.json",
      "ops.token",
      "ops.token.json",
    ]);
    expect((await readdir(join(bench.dir, ".tgw"))).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
