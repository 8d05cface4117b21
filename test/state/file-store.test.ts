import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileStateStore, type StateSnapshot } from "../../src/state/index.js";
import { describeStateStoreConformance, record } from "./conformance.js";

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

describe("FileStateStore: what a writer reads next", () => {
  it("is what it wrote, with frozen records, until another store writes; then what that one wrote", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tgw-state-own-"));
    const path = join(dir, ".tgw", "state.json");
    const header = ({ resources: _r, ...rest }: StateSnapshot) => rest;
    try {
      const a = new FileStateStore(path, { stack: "own", warn: () => {} });
      const empty = await a.read();
      await a.writeChanges(empty, { set: [record("api_keys.a")], removed: [] });
      await a.writeChanges({ ...header(empty), serial: 1 }, { set: [record("api_keys.b")], removed: [] });
      const mine = await a.read();
      expect(mine.serial).toBe(2);
      expect(Object.keys(mine.resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);
      expect(Object.isFrozen(mine.resources["api_keys.a"])).toBe(true);
      expect(() => {
        (mine.resources["api_keys.a"] as { id: string }).id = "ak_changed";
      }).toThrow(TypeError);
      delete mine.resources["api_keys.b"];
      expect(Object.keys((await a.read()).resources).sort()).toEqual(["api_keys.a", "api_keys.b"]);

      const other = new FileStateStore(path, { stack: "own", warn: () => {} });
      const seen = await other.read();
      await other.writeChanges(seen, { set: [record("api_keys.c")], removed: ["api_keys.a"] });
      const after = await a.read();
      expect(after.serial).toBe(3);
      expect(Object.keys(after.resources).sort()).toEqual(["api_keys.b", "api_keys.c"]);
      const whole = await other.read();
      await other.write({ ...whole, resources: { "api_keys.d": record("api_keys.d") } });
      expect(Object.keys((await a.read()).resources)).toEqual(["api_keys.d"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
