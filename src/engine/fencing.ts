/**
 * API writes fenced by the state lock's lease (issue 31 §3): a run that holds a leased lock (the
 * PostgreSQL store) confirms, before each create, update, set or delete, that it still holds it. A
 * holder frozen longer than the lease has lost the lock to another run by then: once woken, it stops
 * with `state_lock_lost` instead of sending the writes it was about to send. Reads are not fenced.
 */
import type { Api } from "../client/index.js";

/**
 * `api` with `assertHeld` awaited before every call that is not a GET.
 * @param assertHeld throws (StateLockLostError) when the lock is lost; the call is then not sent.
 */
export function fencedApi(api: Api, assertHeld: () => Promise<void>): Api {
  return {
    request: async (method, path, options) => {
      if (method !== "GET") await assertHeld();
      return api.request(method, path, options);
    },
    get: (path, options) => api.get(path, options),
    post: async (path, body, options) => {
      await assertHeld();
      return api.post(path, body, options);
    },
    put: async (path, body, options) => {
      await assertHeld();
      return api.put(path, body, options);
    },
    patch: async (path, body, options) => {
      await assertHeld();
      return api.patch(path, body, options);
    },
    delete: async (path, options) => {
      await assertHeld();
      return api.delete(path, options);
    },
    list: (path, listKey, options) => api.list(path, listKey, options),
    listAll: (path, listKey, options) => api.listAll(path, listKey, options),
  };
}
