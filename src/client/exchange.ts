/**
 * One HTTP exchange through undici's dispatcher (`Dispatcher.dispatch` with a handler of callbacks),
 * its body gathered into a string. `request()` would wrap each attempt in an AbortController, a
 * Readable stream for the body and a header object: per API call, more of the main thread than the
 * exchange itself. Here the deadline and the caller's signal abort the exchange through
 * the abort function undici hands the handler, and headers stay raw until one is asked for.
 */
import type { Dispatcher } from "undici";

/** An exchange's answer: status, raw headers (name, value, name, value...), body as UTF-8 text. */
export interface Answer {
  status: number;
  rawHeaders: readonly (Buffer | string)[];
  text: string;
}

/** How an exchange ended without an answer: the error, and whether the deadline caused it. */
export class ExchangeFailure {
  constructor(
    readonly error: unknown,
    readonly timedOut: boolean,
  ) {}
}

/** What an exchange sends. */
export interface Sent {
  origin: string;
  /** Path and query. */
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The exchange was not sent: `sendable` said no when undici was about to write it. */
export class HeldBack extends Error {
  constructor() {
    super("held back before it was sent");
  }
}

/**
 * Sends `sent` through `dispatcher` and resolves with its answer, or with an `ExchangeFailure` when no
 * whole answer came (connection error, the deadline of `timeoutMs` passed). Rejects only with the
 * caller's `signal.reason` when it aborts, and with HeldBack when `sendable`, asked once a connection
 * is ready and nothing is written yet (undici's `onConnect`, right before the request's bytes go to
 * the socket in the same turn), returns false.
 */
export function exchange(
  dispatcher: Dispatcher,
  sent: Sent,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  sendable?: () => boolean,
): Promise<Answer | ExchangeFailure> {
  return new Promise((resolve, reject) => {
    const handler = new Handler(resolve, reject, signal, sendable);
    handler.arm(timeoutMs);
    dispatcher.dispatch(
      { origin: sent.origin, path: sent.path, method: sent.method, headers: sent.headers, body: sent.body },
      handler,
    );
  });
}

/** undici's callback handler (legacy form: undici passes it through without a wrapper). */
class Handler implements Dispatcher.DispatchHandler {
  #abort: ((reason: Error) => void) | undefined;
  /** Why the exchange is to end early: set before undici handed over its abort function. */
  #reason: Error | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timedOut = false;
  #status = 0;
  #rawHeaders: readonly (Buffer | string)[] = [];
  #chunks: Buffer[] = [];
  #done = false;
  readonly #resolve: (r: Answer | ExchangeFailure) => void;
  readonly #reject: (e: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  readonly #sendable: (() => boolean) | undefined;
  #heldBack = false;
  readonly #onSignal = () => this.#cancel((this.#signal as AbortSignal).reason);

  constructor(
    resolve: (r: Answer | ExchangeFailure) => void,
    reject: (e: unknown) => void,
    signal: AbortSignal | undefined,
    sendable: (() => boolean) | undefined,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#sendable = sendable;
    if (signal?.aborted) this.#reason = signal.reason;
    else signal?.addEventListener("abort", this.#onSignal, { once: true });
  }

  arm(timeoutMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#cancel(new Error("timeout"));
    }, timeoutMs);
  }

  #cancel(reason: Error): void {
    if (this.#done) return;
    this.#reason = reason;
    this.#abort?.(reason);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (!this.#reason && this.#sendable && !this.#sendable()) {
      this.#heldBack = true;
      this.#reason = new HeldBack();
    }
    if (this.#reason) abort(this.#reason);
    else this.#abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null): boolean {
    // 1xx (100 Continue...): the answer is yet to come.
    if (status < 200) return true;
    this.#status = status;
    this.#rawHeaders = rawHeaders ?? [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const chunks = this.#chunks;
    const text =
      chunks.length === 0
        ? ""
        : chunks.length === 1
          ? (chunks[0] as Buffer).toString("utf8")
          : Buffer.concat(chunks).toString("utf8");
    this.#end();
    this.#resolve({ status: this.#status, rawHeaders: this.#rawHeaders, text });
  }

  onError(error: Error): void {
    this.#end();
    if (this.#heldBack) this.#reject(this.#reason);
    else if (this.#signal?.aborted) this.#reject(this.#signal.reason);
    else this.#resolve(new ExchangeFailure(error, this.#timedOut));
  }

  #end(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onSignal);
  }
}

/** The value of header `name` (lower case) in `raw`; the first one when it is repeated. */
export function headerOf(raw: readonly (Buffer | string)[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = String(raw[i]);
    if (key.length === name.length && key.toLowerCase() === name) return String(raw[i + 1]);
  }
  return undefined;
}
