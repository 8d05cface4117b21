/**
 * Counters of a large apply, as a user sees them through the CLI against a reference server: one line
 * per tenth of the changes (done of total, failed, rate), none for a small apply; and the counter's
 * arithmetic with failures, from the engine's events.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ApplyCounter } from "../../../src/cli/render/progress.js";
import type { EngineEvent, Plan } from "../../../src/engine/index.js";
import { useStackDir } from "../stack-dir.js";

const ctx = useStackDir("tgw-apply-progress-", { per: "file" });

const run = ctx.run;
const keys = (n: number) =>
  [
    "stack: progress",
    "api_keys:",
    ...Array.from({ length: n }, (_, i) => `  k${i}: {description: key ${i}}`),
    "",
  ].join("\n");

it("an apply of 120 changes prints ten counter lines, the last at 120 of 120; one of 5 prints none", async () => {
  await writeFile(join(ctx.dir, "tgw.yaml"), keys(120));
  const applied = await run("apply", "--auto-approve");
  expect(applied.code).toBe(0);
  const counters = applied.stdout.split("\n").filter((l) => l.startsWith("Progress: "));
  expect(counters).toHaveLength(10);
  expect(counters[0]).toMatch(/^Progress: 12 of 120 changes \(10 %\), 0 failed, [\d,]+\/s$/);
  expect(counters[9]).toMatch(/^Progress: 120 of 120 changes \(100 %\), 0 failed, [\d,]+\/s$/);

  await writeFile(join(ctx.dir, "tgw.yaml"), keys(125));
  const small = await run("apply", "--auto-approve");
  expect(small.code).toBe(0);
  expect(small.stdout).not.toContain("Progress: ");
});

it("counts failed changes with the done ones, and the rate of the done ones", () => {
  const counter = new ApplyCounter();
  const plan = { changes: Array.from({ length: 200 }, () => ({ action: "create" })) } as unknown as Plan;
  const lines: string[] = [];
  const feed = (e: EngineEvent, now: number) => {
    const line = counter.next(e, now);
    if (line) lines.push(line);
  };
  feed({ type: "planned", plan }, 0);
  feed({ type: "step_started", address: "a", action: "create", op: "create" }, 0);
  for (let i = 0; i < 150; i++)
    feed({ type: "change_applied", address: `a${i}`, action: "create", durationMs: 1 }, 1000);
  for (let i = 0; i < 50; i++)
    feed(
      {
        type: "step_failed",
        address: `b${i}`,
        action: "create",
        op: "create",
        error: new Error("x"),
        durationMs: 1,
      },
      1000,
    );
  expect(lines).toHaveLength(10);
  expect(lines[9]).toBe("Progress: 200 of 200 changes (100 %), 50 failed, 150/s");
});
