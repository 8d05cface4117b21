/** Apply's progress lines: a token file is shown relative to the working directory when inside it. */
import { join, resolve } from "node:path";
import { createColors } from "picocolors";
import { expect, it } from "vitest";
import { progressLine } from "../../src/cli/render/progress.js";

const plain = createColors(false);
const written = (path: string) =>
  progressLine({ type: "token_written", address: "api_keys.ci", path }, plain);

it("shows a token file relative to the working directory inside it, else as it is", () => {
  const cwd = process.cwd();
  const outside = resolve(cwd, "..", "elsewhere", "ci.token");
  // Twice: the second round reads the directories the first one worked out.
  for (let round = 0; round < 2; round++) {
    expect(written(join(cwd, ".tgw", "secrets", "ci.token"))).toBe(
      `api_keys.ci: token written to ${join(".tgw", "secrets", "ci.token")} (mode 0600)`,
    );
    expect(written(join(cwd, "ci.token"))).toBe("api_keys.ci: token written to ci.token (mode 0600)");
    expect(written(outside)).toBe(`api_keys.ci: token written to ${outside} (mode 0600)`);
  }
});
