/**
 * Refresh by list: the provider process lives for one Terraform run (plan, or the apply walk), so
 * `ReadResource` is answered from one paginated list per kind, fetched the first time the kind is read
 * and shared by every later read of the run (concurrent reads wait for the same list). An id missing
 * from the list gets one GET (an object created after the list was taken); 404 means it is gone.
 * Objects the provider itself creates, changes or deletes during the run update the cache.
 *
 * Mode `get` reads each object with its own GET, the way other providers refresh (for the benchmark).
 * Every request goes through the client, so its rate limiter and retries apply.
 */
import { type Api, ApiError } from "../client/index.js";
import { objectPath } from "../engine/apply.js";
import { readModule } from "../engine/refresh.js";
import { getKind } from "../model/index.js";

/** How `ReadResource` reads live objects. */
export type RefreshMode = "list" | "get";

type Raw = Record<string, unknown>;

/** The live objects read during one run. */
export class ListCache {
  readonly #api: Api;
  readonly #mode: RefreshMode;
  readonly #lists = new Map<string, Promise<Map<string, Raw>>>();

  constructor(api: Api, mode: RefreshMode = "list") {
    this.#api = api;
    this.#mode = mode;
  }

  /**
   * The live object `id` of `kind`, or undefined when it does not exist.
   * @throws ApiError / NetworkError from the client (other than 404).
   */
  async read(kind: string, id: string): Promise<Raw | undefined> {
    const k = getKind(kind);
    if (k.module) return readModule(this.#api, id);
    if (this.#mode === "list" && k.listKey) {
      const found = (await this.#list(kind)).get(id);
      if (found) return found;
    }
    try {
      const raw = await this.#api.get<Raw>(objectPath(k, id));
      this.remember(kind, id, raw);
      return raw;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Every object of `kind` (one paginated list, shared by the run). */
  all(kind: string): Promise<Map<string, Raw>> {
    return this.#list(kind);
  }

  /** Records an object the provider wrote (undefined: deleted), so later reads see it. */
  remember(kind: string, id: string, raw: Raw | undefined): void {
    const list = this.#lists.get(kind);
    if (!list) return;
    void list.then(
      (m) => (raw ? m.set(id, raw) : m.delete(id)),
      () => undefined,
    );
  }

  #list(kind: string): Promise<Map<string, Raw>> {
    let list = this.#lists.get(kind);
    if (!list) {
      const k = getKind(kind);
      list = this.#api
        .listAll<Raw>(k.path, k.listKey as string, { limit: 100 })
        .then((items) => new Map(items.flatMap((i) => (typeof i.id === "string" ? [[i.id, i]] : []))));
      // A failed list is not cached: the next read tries again.
      list.catch(() => this.#lists.delete(kind));
      this.#lists.set(kind, list);
    }
    return list;
  }
}
