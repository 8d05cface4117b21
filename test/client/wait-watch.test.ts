import { afterEach, describe, expect, it, vi } from "vitest";
import type { WaitingEvent } from "../../src/client/index.js";
import { WaitWatch } from "../../src/client/waits.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("WaitWatch", () => {
  it("reports a pending wait after the first delay, then at each interval, and nothing once it ends", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    const reports: WaitingEvent[] = [];
    const watch = new WaitWatch((e) => reports.push(e), 2_000, 10_000);
    let end = () => {};
    const work = new Promise<string>((resolve) => {
      end = () => resolve("done");
    });
    const quick = watch.watch({ method: "GET", path: "/quick", for: "response" }, Promise.resolve(1));
    const slow = watch.watch({ method: "POST", path: "/slow", for: "rate-limit" }, work);
    await expect(quick).resolves.toBe(1);

    vi.advanceTimersByTime(1_900);
    expect(reports).toHaveLength(0);
    vi.advanceTimersByTime(400);
    expect(reports).toEqual([
      { method: "POST", path: "/slow", for: "rate-limit", waitedMs: expect.any(Number) },
    ]);
    expect(reports[0]?.waitedMs).toBeGreaterThanOrEqual(2_000);
    vi.advanceTimersByTime(10_000);
    expect(reports).toHaveLength(2);

    end();
    await expect(slow).resolves.toBe("done");
    vi.advanceTimersByTime(30_000);
    expect(reports).toHaveLength(2);
    // The timer stops at its first tick without a pending wait.
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ignores a report hook that throws", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    const watch = new WaitWatch(
      () => {
        throw new Error("broken hook");
      },
      100,
      100,
    );
    const work = watch.watch({ method: "GET", path: "/x", for: "response" }, new Promise(() => {}));
    expect(() => vi.advanceTimersByTime(1_000)).not.toThrow();
    void work;
  });
});
