/**
 * Commands are loaded on demand (src/cli/commands/index.ts): each entry's name is the command its
 * module registers, and a run loads only the command it names.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commands, commandsFor } from "../../src/cli/commands/index.js";

describe("commands loaded on demand", () => {
  it("registers, for each entry, exactly the command of its name", async () => {
    for (const entry of commands) {
      const program = new Command();
      (await entry.load())(program);
      expect(program.commands.map((c) => c.name())).toEqual([entry.name]);
    }
  });

  it("loads the named command only, none for --version, all for help or an unknown word", () => {
    const names = (args: string[]) => commandsFor(args).map((c) => c.name);
    expect(names(["plan", "-f", "infra"])).toEqual(["plan"]);
    expect(names(["--debug", "apply", "--auto-approve"])).toEqual(["apply"]);
    expect(names(["--version"])).toEqual([]);
    expect(names(["-V"])).toEqual([]);
    expect(names(["--help"])).toHaveLength(commands.length);
    expect(names([])).toHaveLength(commands.length);
    expect(names(["plna"])).toHaveLength(commands.length);
    expect(names(["help", "plan"])).toHaveLength(commands.length);
  });
});
