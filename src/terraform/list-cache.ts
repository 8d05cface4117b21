/**
 * Refresh by list: the provider process lives for one Terraform run (plan, or the apply walk), so
 * `ReadResource` is answered from one paginated list per kind, shared by every read of the run
 * (concurrent reads wait for the same list). The first `GETS_BEFORE_LIST` reads of a kind are a GET
 * each: a run that reads one or two objects of a kind the account holds thousands of costs one or two
 * requests, not the kind's pages; the third read fetches the list. An id missing from the list gets
 * one GET (an object created after the list was taken); 404 means it is gone.
 * Objects the provider itself creates, changes or deletes during the run update the cache.
 *
 * List data sources (`tunnelgw_api_keys`) read the same lists, in the API's order (`listed`): a list
 * the provider changed during the run is fetched again first, so that it shows the objects in the order
 * the API lists them (an object the provider wrote is only appended to the cached list).
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

/** Reads of a kind answered by a GET each before its list is fetched (then: the list). */
export const GETS_BEFORE_LIST = 2;

/** The live objects read during one run. */
export class ListCache {
  readonly #api: Api;
  readonly #mode: RefreshMode;
  /** Lists by kind (a nested collection's by kind and path). */
  readonly #lists = new Map<string, Promise<Map<string, Raw>>>();
  /** Kinds whose cached list the provider changed (`remember`) since it was fetched. */
  readonly #changed = new Set<string>();
  /** Reads of each kind so far, while they are GETs. */
  readonly #reads = new Map<string, number>();

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
    if (this.#mode === "list" && k.listKey && this.#byList(kind)) {
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

  /** True when this read of `kind` goes through its list: the list is there, or past the first GETs. */
  #byList(kind: string): boolean {
    if (this.#lists.has(kind)) return true;
    const reads = (this.#reads.get(kind) ?? 0) + 1;
    this.#reads.set(kind, reads);
    return reads > GETS_BEFORE_LIST;
  }

  /** Every object of `kind` (one paginated list, shared by the run). */
  all(kind: string): Promise<Map<string, Raw>> {
    return this.#list(kind);
  }

  /**
   * Every object of the list at `path` (default: the kind's collection; a nested collection's path
   * filled, e.g. `/edges/https/edghts_1/routes`), in the API's order, shared by the run like `all`.
   * @throws ApiError / NetworkError from the client (a 404 of a nested collection's parent included).
   */
  async listed(kind: string, path?: string): Promise<Raw[]> {
    const key = path === undefined || path === getKind(kind).path ? kind : `${kind} ${path}`;
    if (this.#changed.delete(key)) this.#lists.delete(key);
    return [...(await this.#list(kind, key, path)).values()];
  }

  /** Records an object the provider wrote (undefined: deleted), so later reads see it. */
  remember(kind: string, id: string, raw: Raw | undefined): void {
    const list = this.#lists.get(kind);
    if (!list) return;
    this.#changed.add(kind);
    void list.then(
      (m) => (raw ? m.set(id, raw) : m.delete(id)),
      () => undefined,
    );
  }

  #list(kind: string, key = kind, path?: string): Promise<Map<string, Raw>> {
    let list = this.#lists.get(key);
    if (!list) {
      const k = getKind(kind);
      list = this.#api
        .listAll<Raw>(path ?? k.path, k.listKey as string, { limit: 100 })
        .then((items) => new Map(items.flatMap((i) => (typeof i.id === "string" ? [[i.id, i]] : []))));
      // A failed list is not cached: the next read tries again.
      const failed = list;
      failed.catch(() => this.#lists.get(key) === failed && this.#lists.delete(key));
      this.#lists.set(key, failed);
    }
    return list;
  }
}
