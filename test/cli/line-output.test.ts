/**
 * `LineOutput`: apply progress gathered into few writes when stdout is not a terminal, with the same
 * text in the same order, and never behind a warning written after it.
 */
import { afterEach, expect, it, vi } from "vitest";
import { BUFFERED_OUTPUT_MS, flushBufferedOutput, LineOutput, warn } from "../../src/cli/output.js";

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (t: string) => writes.push(t) > 0 } };
}

afterEach(() => {
  flushBufferedOutput();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

it("on a terminal, writes each line at once", () => {
  const { writes, stream } = sink(true);
  const out = new LineOutput(stream as unknown as NodeJS.WritableStream);
  out.write("a: creating...\n");
  out.write("a: created ak_1 (0.1s)\n");
  expect(writes).toEqual(["a: creating...\n", "a: created ak_1 (0.1s)\n"]);
});

it("into a pipe, gathers lines and writes them in one piece after a short while, in order", () => {
  vi.useFakeTimers();
  const { writes, stream } = sink(false);
  const out = new LineOutput(stream as unknown as NodeJS.WritableStream);
  const lines = Array.from({ length: 1000 }, (_, i) => `r${i}: created id_${i} (0.0s)\n`);
  for (const line of lines) out.write(line);
  expect(writes).toEqual([]);
  vi.advanceTimersByTime(BUFFERED_OUTPUT_MS);
  expect(writes).toEqual([lines.join("")]);
  out.write("last\n");
  out.flush();
  expect(writes.join("")).toBe(`${lines.join("")}last\n`);
});

it("writes a large amount at once instead of holding it", () => {
  const { writes, stream } = sink(false);
  const out = new LineOutput(stream as unknown as NodeJS.WritableStream);
  const line = `${"x".repeat(99)}\n`;
  for (let i = 0; i < 1000; i++) out.write(line);
  expect(writes.length).toBeGreaterThan(0);
  out.flush();
  expect(writes.join("")).toBe(line.repeat(1000));
});

it("a warning on stderr comes after the progress lines written before it", () => {
  const { writes, stream } = sink(false);
  const order: string[] = [];
  const out = new LineOutput({
    ...stream,
    write: (t: string) => order.push(`out:${t}`) > 0,
  } as unknown as NodeJS.WritableStream);
  vi.spyOn(process.stderr, "write").mockImplementation(
    (t: string | Uint8Array) => order.push(`err:${t}`) > 0,
  );
  out.write("a: creating...\n");
  warn("something");
  out.write("a: created\n");
  out.flush();
  expect(writes).toEqual([]);
  expect(order).toEqual(["out:a: creating...\n", "err:Warning: something\n", "out:a: created\n"]);
});
