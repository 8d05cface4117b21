import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileStateStore } from "../../src/state/index.js";
import { describeStateStoreConformance } from "./conformance.js";

const FACTORY = fileURLToPath(new URL("./file-store-factory.ts", import.meta.url));

describeStateStoreConformance("FileStateStore", async (stack) => {
  const dir = await mkdtemp(join(tmpdir(), "tgw-state-"));
  const path = join(dir, ".tgw", "state.json");
  return {
    open: () => new FileStateStore(path, { stack, warn: () => {} }),
    child: { module: FACTORY, location: path },
    deleteState: () => rm(path),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
