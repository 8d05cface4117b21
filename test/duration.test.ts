import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "../src/duration.js";
import { UsageError } from "../src/errors.js";

describe("parseDuration", () => {
  it.each([
    ["0", 0],
    ["30", 30_000],
    ["0s", 0],
    ["250ms", 250],
    ["30s", 30_000],
    ["1.5s", 1_500],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["1m30s", 90_000],
    [" 10s ", 10_000],
  ])("%s is %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "soon", "-1s", "30x", "s", "1m 30s", "1e3s"])("%j is refused naming the option", (text) => {
    expect(() => parseDuration(text, "--lock-timeout")).toThrow(UsageError);
    expect(() => parseDuration(text, "--lock-timeout")).toThrow(
      `invalid duration ${JSON.stringify(text)} for --lock-timeout: use a number with a unit`,
    );
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [250, "250ms"],
    [1_500, "1.5s"],
    [30_000, "30s"],
    [90_000, "1m30s"],
    [120_000, "2m"],
    [3_900_000, "1h5m"],
  ])("%i ms is %s, which parses back", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
