/**
 * Shell completion, as a user gets it: the scripts `tgw completion SHELL` prints, and what TAB offers
 * through them, answered by `tgw completion-server` from the commands' own definitions. Bash runs
 * its script for real (a `tgw` on its PATH that runs these sources).
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tgw } from "../tgw.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tgw-completion-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** What the completer answers for `line` (the cursor at its end) in `shell`. */
async function complete(line: string, shell = "bash"): Promise<string[]> {
  const words = line.split(" ");
  const run = await tgw(["completion-server", "--", ...words], {
    cwd: dir,
    env: {
      COMP_LINE: line,
      COMP_POINT: String(line.length),
      COMP_CWORD: String(words.length - 1),
      SHELL: shell,
    },
  });
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").filter((l) => l !== "");
}

it("prints a script for bash, zsh and fish, and refuses another shell", async () => {
  for (const [shell, marker] of [
    ["bash", "complete -o default -F _tgw_completion tgw"],
    ["zsh", "compdef _tgw_completion tgw"],
    ["fish", '-c tgw -a "(_tgw_completion)"'],
  ]) {
    const run = await tgw(["completion", shell as string], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(marker);
  }
  const bad = await tgw(["completion", "tcsh"], { cwd: dir });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("the shells are bash, zsh, fish");
});

it("offers commands, sub-commands, options, and files where a file goes", async () => {
  expect(await complete("tgw pl")).toEqual(["plan"]);
  expect(await complete("tgw state m")).toEqual(["mv", "migrate"]);
  expect(await complete("tgw plan --tar")).toEqual(["--target"]);
  expect(await complete("tgw apply -f ")).toEqual(["__tabtab_complete_files__"]);
  const zsh = await complete("tgw st", "zsh");
  // zsh: name:description, with the description's own colons escaped.
  // zsh: name:description, with the description's own colons escaped.
  expect(zsh).toContain(
    String.raw`state:inspect or edit the state store\: what tgw manages (address -> id, fingerprints)`,
  );
  expect(zsh.some((l) => l.startsWith("completion-server"))).toBe(false);
  const fish = await complete("tgw generate --co", "fish");
  expect(fish.some((l) => l.startsWith("--collection\t"))).toBe(true);
});

it("bash completes through its script, with tgw on the PATH", async () => {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const main = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
  const bin = join(dir, "bin");
  execFileSync("mkdir", ["-p", bin]);
  await writeFile(
    join(bin, "tgw"),
    `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${main}" "$@"\n`,
  );
  await chmod(join(bin, "tgw"), 0o755);
  const script = `source <(tgw completion bash)
COMP_WORDS=(tgw sta); COMP_CWORD=1; COMP_LINE="tgw sta"; COMP_POINT=7
_tgw_completion
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync("bash", ["-c", script], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    encoding: "utf8",
  });
  expect(out.trim().split("\n")).toEqual(["state"]);
});
