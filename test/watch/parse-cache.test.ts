/**
 * The parsed-file cache of `tgw watch` (src/config/cache.ts): an unchanged file is not parsed again,
 * a changed byte is, a file with a problem is never kept (its problems are reported on every load),
 * and files no longer read are dropped.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParseCache } from "../../src/config/cache.js";
import { ConfigError, loadDesiredState } from "../../src/config/index.js";
import { scratchConfig } from "./child.js";

const scratch = scratchConfig("tgw-parse-cache-", {
  "config/a.yaml": "stack: cache\napi_keys:\n  a:\n    description: a1\n",
  "config/b.yaml": "api_keys:\n  b:\n    description: b1\n",
});
afterAll(() => scratch.cleanup());

const cache = new ParseCache();
const load = async () => {
  try {
    return { desired: await loadDesiredState([scratch.dir], { parseCache: cache }) };
  } catch (err) {
    if (err instanceof ConfigError) return { problems: err.problems.map((p) => p.message) };
    throw err;
  } finally {
    counts = cache.endLoad();
  }
};
let counts = { parsed: 0, reused: 0 };
const descriptions = (d: Awaited<ReturnType<typeof load>>) =>
  d.desired?.resources.map((r) => r.fields.description);

describe("ParseCache", () => {
  it("parses a file again only when its text changed", async () => {
    expect(descriptions(await load())).toEqual(["a1", "b1"]);
    expect(counts).toEqual({ parsed: 2, reused: 0 });
    expect(descriptions(await load())).toEqual(["a1", "b1"]);
    expect(counts).toEqual({ parsed: 0, reused: 2 });
    scratch.write("config/b.yaml", "api_keys:\n  b:\n    description: b2\n");
    expect(descriptions(await load())).toEqual(["a1", "b2"]);
    expect(counts).toEqual({ parsed: 1, reused: 1 });
  });

  it("keeps no file with a problem, and drops files no longer read", async () => {
    scratch.write("config/b.yaml", "api_keys:\n  b:\n    description: [b3\n");
    expect((await load()).problems?.length).toBeGreaterThan(0);
    expect((await load()).problems?.length).toBeGreaterThan(0);
    expect(counts).toEqual({ parsed: 1, reused: 1 });
    rmSync(join(scratch.dir, "b.yaml"));
    writeFileSync(join(scratch.dir, "c.yaml"), "api_keys:\n  c:\n    description: c1\n");
    expect(descriptions(await load())).toEqual(["a1", "c1"]);
    expect(cache.size).toBe(2);
  });
});
