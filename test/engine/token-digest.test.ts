/**
 * A token file that no longer holds its key's token is a lost token (issue 31 §2: never lost
 * silently): the token file's sidecar names the key and the digest of its token (the state records the
 * digest too, TokenDelivery.digest), so the next plan tells an emptied file, or one holding another
 * token, from the key's own. A file holding the token keeps the key quiet.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type EngineEvent, reconcile } from "../../src/engine/index.js";
import { tokenDigest } from "../../src/engine/token-sidecar.js";
import { desired, res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

const keys = [res("api_keys.ci", { description: "CI" })];
const file = () => join(bench.dir, ".tgw", "secrets", "ci.token");

async function lostAfterPlan(): Promise<string[]> {
  const events: EngineEvent[] = [];
  await reconcile({
    desired: desired(keys, "marker", bench.dir),
    api: bench.api,
    store: bench.store,
    options: { mode: "plan" },
    onEvent: (e) => events.push(e),
  });
  return events.flatMap((e) => (e.type === "token_lost" ? [e.address] : []));
}

it("an emptied token file, or one holding another token, is reported; the key's own token is not", async () => {
  await reconcile({
    desired: desired(keys, "marker", bench.dir),
    api: bench.api,
    store: bench.store,
    options: { mode: "apply" },
  });
  const token = (await readFile(file(), "utf8")).trim();
  const record = (await bench.store.read()).resources["api_keys.ci"];
  expect(record?.tokenDelivered?.digest).toBe(tokenDigest(token));
  expect(JSON.stringify(await bench.store.read())).not.toContain(token);
  expect(await lostAfterPlan()).toEqual([]);

  await writeFile(file(), "");
  expect(await lostAfterPlan()).toEqual(["api_keys.ci"]);
  await writeFile(file(), "tgw_another_keys_token\n");
  expect(await lostAfterPlan()).toEqual(["api_keys.ci"]);
  await writeFile(file(), `${token}\n`);
  expect(await lostAfterPlan()).toEqual([]);
});
