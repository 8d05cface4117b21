/**
 * An abortable wait. Rejects with `signal.reason` (what the caller passed to `abort()`), so callers of the
 * client see their own reason whether the abort came during a request, a backoff or a rate-limit wait.
 * Kept instead of `node:timers/promises`, whose `setTimeout` rejects with its own `AbortError` (the
 * caller's reason only as its `cause`), on every wait of the client.
 */

/**
 * Resolves after `ms` milliseconds.
 * @throws `signal.reason` if the signal is aborted before or during the wait.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
