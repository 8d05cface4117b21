/**
 * Turns of the event loop during a long load: a configuration of thousands of resources takes about
 * a second to load, all of it synchronous, and `tgw plan` against a remote API sends its reads while
 * it loads (src/client/prefetch.ts). Yielding every few milliseconds lets their answers arrive and
 * the next reads go out meanwhile, instead of waiting until the load ends.
 */
import { setImmediate } from "node:timers/promises";

/** Work between two turns of the event loop, in ms. */
const SLICE_MS = 10;

/**
 * A function to call between units of work: it resolves at once (undefined) until `SLICE_MS` passed
 * since the last turn, then yields one turn of the event loop.
 */
export function loopTurns(): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < SLICE_MS) return undefined;
    return setImmediate().then(() => {
      last = performance.now();
    });
  };
}
