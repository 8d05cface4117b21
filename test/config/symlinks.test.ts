/**
 * Symbolically linked configuration files, as a Kubernetes ConfigMap mounts them
 * (`tgw.yaml -> ..data/tgw.yaml`, `..data -> ..2026_01_01_00_00_00.1`): read like plain files, a link
 * to nothing is an error (never silently skipped, which would plan to delete its resources), and
 * `tgw watch` notices the `..data` swap of a ConfigMap update.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadDesiredState } from "../../src/config/index.js";
import { FileWatcher } from "../../src/watch/file-watcher.js";

let dir: string;
let outside: string;
let watcher: FileWatcher | undefined;

/**
 * One ConfigMap version as the kubelet writes it: a timestamped directory with the files, `..data`
 * swapped to it (a new link renamed over the old one). The kubelet then removes the previous
 * directory; not done here, so that the swap alone must be noticed.
 */
function publish(version: number, files: Record<string, string>): void {
  const real = `..2026_01_01_00_00_0${version}.1`;
  mkdirSync(join(dir, real));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, real, name), text);
  symlinkSync(real, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tgw-cm-"));
  outside = mkdtempSync(join(tmpdir(), "tgw-cm-out-"));
  publish(1, { "tgw.yaml": "stack: cm\ntunnel_group_backends:\n  web: {description: v1}\n" });
  symlinkSync("..data/tgw.yaml", join(dir, "tgw.yaml"));
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("symbolic links", () => {
  it("to files are read, in the directory or outside it", async () => {
    writeFileSync(join(outside, "keys.yaml"), "api_keys:\n  ci: {description: CI}\n");
    symlinkSync(join(outside, "keys.yaml"), join(dir, "keys.yaml"));
    const desired = await loadDesiredState([dir]);
    expect(desired.resources.map((r) => r.address)).toEqual(["api_keys.ci", "tunnel_group_backends.web"]);
    expect(desired.stack).toBe("cm");
  });

  it("to nothing are an error naming the link", async () => {
    symlinkSync(join(outside, "gone.yaml"), join(dir, "keys.yaml"));
    const err = await loadDesiredState([dir]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).format()).toContain("keys.yaml: a symbolic link to nothing");
  });

  it("in a loop are an error; directories named *.yaml, linked or not, are not files", async () => {
    symlinkSync("loop-b.yaml", join(dir, "loop-a.yaml"));
    symlinkSync("loop-a.yaml", join(dir, "loop-b.yaml"));
    mkdirSync(join(dir, "sub.yaml"));
    writeFileSync(join(dir, "sub.yaml", "inner.yaml"), "api_keys:\n  hidden: {}\n");
    symlinkSync(outside, join(dir, "linked-dir.yml"));
    const err = await loadDesiredState([dir]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const text = (err as ConfigError).format();
    expect(text).toContain("loop-a.yaml: a symbolic link to nothing");
    expect(text).toContain("loop-b.yaml: a symbolic link to nothing");
    expect(text).not.toMatch(/sub\.yaml|linked-dir\.yml|hidden/);
    rmSync(join(dir, "loop-a.yaml"));
    rmSync(join(dir, "loop-b.yaml"));
    const desired = await loadDesiredState([dir]);
    expect(desired.resources.map((r) => r.address)).toEqual(["tunnel_group_backends.web"]);
  });

  it("of a ConfigMap: tgw watch notices the ..data swap of an update", async () => {
    const batches: string[][] = [];
    watcher = new FileWatcher({ roots: [dir], debounceMs: 100, onChange: (files) => batches.push(files) });
    await watcher.ready();
    watcher.setFiles([join(dir, "tgw.yaml")]);
    await sleep(300);
    publish(2, { "tgw.yaml": "stack: cm\ntunnel_group_backends:\n  web: {description: v2}\n" });
    for (let i = 0; i < 40 && batches.length === 0; i++) await sleep(100);
    expect(batches.flat()).toContain(join(dir, "..data"));
    const desired = await loadDesiredState([dir]);
    expect(desired.resources[0]?.fields.description).toBe("v2");
  });
});
