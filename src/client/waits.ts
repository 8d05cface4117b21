/**
 * Reports the calls of a client that wait long (`ApiClientOptions.onWaiting`) from one timer that
 * looks at every pending wait a few times a second, instead of a timer (and an interval) per attempt:
 * an apply's thousands of calls each end long before a report is due, and two timers per call were a
 * measurable part of its CPU. A report comes at most `TICK_MS` later than its due time.
 */

/** Methods the API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A call that has been waiting for a while, as reported to `onWaiting`: for its response (the server
 * is slow or does not answer) or for a slot of the client's rate limiter. Never carries a body.
 */
export interface WaitingEvent {
  method: HttpMethod;
  /** Path relative to the base URL, without the query string. */
  path: string;
  for: "response" | "rate-limit";
  /** How long it has waited so far, in ms. */
  waitedMs: number;
  /** The attempt's deadline, in ms (`for: "response"`). */
  timeoutMs?: number;
}

/** How often pending waits are looked at (ms). */
const TICK_MS = 250;

interface Wait {
  what: Omit<WaitingEvent, "waitedMs">;
  t0: number;
  /** When the next report is due, in ms since `t0`. */
  due: number;
}

/** The pending waits of one client and the timer that reports them. */
export class WaitWatch {
  readonly #waits = new Set<Wait>();
  readonly #report: (event: WaitingEvent) => void;
  readonly #firstMs: number;
  readonly #everyMs: number;
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param report receives each report; exceptions it throws are ignored.
   * @param firstMs first report after this long (ms); then one every `everyMs`.
   */
  constructor(report: (event: WaitingEvent) => void, firstMs: number, everyMs: number) {
    this.#report = report;
    this.#firstMs = firstMs;
    this.#everyMs = everyMs;
  }

  /** Resolves as `work` does, reporting `what` while it is pending. */
  watch<T>(what: Omit<WaitingEvent, "waitedMs">, work: Promise<T>): Promise<T> {
    const wait: Wait = { what, t0: performance.now(), due: this.#firstMs };
    this.#waits.add(wait);
    // Unref'd: a wait never keeps the process alive; the call it watches does.
    this.#timer ??= setInterval(() => this.#tick(), TICK_MS).unref();
    const done = () => this.#waits.delete(wait);
    work.then(done, done);
    return work;
  }

  #tick(): void {
    // Stopped at a tick without waits, not when the last one ends: calls follow each other closely.
    if (this.#waits.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const wait of this.#waits) {
      const waitedMs = now - wait.t0;
      if (waitedMs < wait.due) continue;
      wait.due += this.#everyMs;
      try {
        this.#report({ ...wait.what, waitedMs });
      } catch {
        // Observing must not change a run.
      }
    }
  }
}
