/**
 * What the API client knows of an outage: once an attempt found the API down, the next attempt goes
 * out alone to find out whether it is back (the probe), and the attempts arriving meanwhile wait for
 * its answer; while the API is still down they are not sent.
 *
 * Strict mode (`tgw watch`, ApiClientOptions.probeOutages) also holds back a retry once other
 * attempts found the API down since its call's last attempt started: the calls in flight when the API
 * went down cost one probe between them, not one retry each.
 */

/**
 * An attempt's passage through the gate: not sent (`down`: the outage's last answer), or its result,
 * whether it was a probe, and the `outages` a retry of it may have seen (./client.ts `OutageCall`).
 */
export type Passage<T> = { down: T } | { result: T; probe: boolean; allowed: number };

/** The outage state of one client. `T` is the client's attempt result. */
export class OutageGate<T> {
  readonly #strict: boolean;
  /** The last attempt's result while the API is down; undefined while it is up. */
  #down: T | undefined;
  /** The probe in flight, if any; others wait for it. */
  #probe: Promise<void> | undefined;
  /** Attempts that found the API down so far: a call that has seen fewer was overtaken. */
  #outages = 0;

  /** @param strict see the module doc */
  constructor(strict: boolean) {
    this.#strict = strict;
  }

  /** Attempts that found the API down so far: a new call has seen these. */
  get outages(): number {
    return this.#outages;
  }

  /**
   * Runs `attempt` unless the API is known to be down.
   * @param allowed the most `outages` the call may have seen and still go out in strict mode: those
   *   counted when its last attempt started, plus that attempt's own.
   * @param isOutage whether a result means the API is down.
   * @returns `{down}` when not sent; else the result, whether it was a probe, and the next `allowed`.
   */
  async pass(
    allowed: number,
    attempt: () => Promise<T>,
    isOutage: (result: T) => boolean,
  ): Promise<Passage<T>> {
    if (this.#probe) {
      await this.#probe;
      if (this.#down !== undefined) return { down: this.#down };
    } else if (this.#strict && this.#down !== undefined && this.#outages > allowed) {
      return { down: this.#down };
    }
    const probe = this.#down !== undefined;
    const before = this.#outages;
    let release: (() => void) | undefined;
    if (probe) this.#probe = new Promise((resolve) => (release = resolve));
    try {
      const result = await attempt();
      const down = isOutage(result);
      if (down) {
        this.#down = result;
        this.#outages++;
      } else this.#down = undefined;
      return { result, probe, allowed: before + (down ? 1 : 0) };
    } finally {
      if (release) {
        this.#probe = undefined;
        release();
      }
    }
  }
}
