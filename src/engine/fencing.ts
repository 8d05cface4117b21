/**
 * API writes fenced by the state lock's lease (issue 31 §3, issue 43 §8): a run that holds a leased
 * lock (the PostgreSQL store, the file store) confirms, before each create, update, set or delete, that
 * it still holds it. A holder frozen longer than the lease has lost the lock to another run by then:
 * once woken, it stops with `state_lock_lost` instead of sending the writes it was about to send.
 * Reads are not fenced.
 */
import type { Api, Fence, RequestOptions } from "../client/index.js";
import type { StateFencing } from "../state/store.js";

/**
 * `api` with the lock confirmed (`assertLockHeld`) before every call that is not a GET, and again
 * before each of its attempts (after any wait for a rate-limit slot or a retry's delay, during which
 * the process may have been frozen); right before an attempt's bytes go out, a confirmation that may
 * have run out since (`lockStillConfirmed`: the process stalled in between) holds it back to be
 * confirmed again (the client's `Fence`).
 * @throws StateLockLostError from a write when the lock is lost; the write is then not sent.
 */
export function fencedApi(api: Api, store: StateFencing): Api {
  const fence: Fence = {
    check: () => store.assertLockHeld(),
    stillValid: () => store.lockStillConfirmed(),
  };
  const fenced = <O extends Omit<RequestOptions, "body">>(options: O | undefined): O =>
    ({ ...options, fence }) as O;
  return {
    request: async (method, path, options) => {
      if (method === "GET") return api.request(method, path, options);
      await fence.check();
      return api.request(method, path, fenced(options));
    },
    get: (path, options) => api.get(path, options),
    post: async (path, body, options) => {
      await fence.check();
      return api.post(path, body, fenced(options));
    },
    put: async (path, body, options) => {
      await fence.check();
      return api.put(path, body, fenced(options));
    },
    patch: async (path, body, options) => {
      await fence.check();
      return api.patch(path, body, fenced(options));
    },
    delete: async (path, options) => {
      await fence.check();
      return api.delete(path, fenced(options));
    },
    list: (path, listKey, options) => api.list(path, listKey, options),
    listAll: (path, listKey, options) => api.listAll(path, listKey, options),
  };
}
