/**
 * Reads sent before they are asked for (issue 30 §1): `tgw plan` against a remote API spends most of
 * its time first loading the configuration and then waiting for the refresh's answers, one round trip
 * after another. The GETs of a workspace's last refresh are remembered in the user's cache directory
 * (`reads/`, one file per API, key and workspace; paths and ids only, no secret), and the next plan
 * sends them again while its configuration loads. The refresh then takes each answer it asks for
 * from there (once), and sends what was not asked for in advance itself.
 *
 * Only a hint: a read that is not asked for again is never used, and an answer is used only for the
 * very request (path and query) it answers. Only `tgw plan` sends reads early, before it knows its
 * configuration: a plan changes nothing, and an answer a second old is as good as the refresh's own.
 * `tgw apply` reads after taking the state lock (docs/plan.md > Reads sent early).
 */
import { join } from "node:path";
import { hashedJsonFile, readJsonFile, userCacheDir, writeJsonFile } from "../cache-dir.js";
import type { Api, HttpMethod, ListOptions, Query, RequestOptions } from "./client.js";

/**
 * Reads in flight at once while the configuration loads: twice the refresh's, as the load lets the
 * event loop turn only every few milliseconds, and each turn should find enough answers to use it.
 */
const IN_FLIGHT = 32;

/**
 * The file of the reads remembered for one API (`apiUrl`, `apiKeyDigest`: the state's identity of
 * the API, never the key) and one workspace (`workspace`: any text naming it, such as its
 * configuration paths), under the cache directory of `env`.
 */
export function readsFile(
  apiUrl: string,
  apiKeyDigest: string | undefined,
  workspace: string,
  env: Record<string, string | undefined> = process.env,
): string {
  return hashedJsonFile(join(userCacheDir(env), "reads"), [
    "tgw-reads",
    apiUrl,
    apiKeyDigest ?? "",
    workspace,
  ]);
}

/**
 * An `Api` that records the GETs sent through it (`startRecording`) and answers a GET from the reads
 * `prefetch` sent early when one answers that very request. Other calls pass through unchanged.
 */
export class PrefetchingApi implements Api {
  readonly #api: Api;
  /** Reads sent early, by request (`requestKey`), until asked for; each is used once. */
  readonly #sent = new Map<string, Promise<unknown>>();
  /** Reads remembered but not sent yet, in the order they are sent. */
  #waiting = new Set<string>();
  #inFlight = 0;
  /** GETs sent through this Api while recording, in order. */
  #read: string[] = [];
  #recording = false;

  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * Starts sending the reads remembered in `file` (`IN_FLIGHT` at a time) and returns how many there
   * are; a missing or unreadable file holds none.
   */
  prefetch(file: string): number {
    const keys = readJsonFile(file);
    if (!Array.isArray(keys)) return 0;
    this.#waiting = new Set(keys.filter((k): k is string => typeof k === "string" && k.startsWith("/")));
    const count = this.#waiting.size;
    this.#pump();
    return count;
  }

  /**
   * Starts recording the GETs sent through this Api (for `save`), forgetting any recorded before;
   * callers record around a refresh.
   */
  startRecording(): void {
    this.#read = [];
    this.#recording = true;
  }

  /** Stops recording GETs. */
  stopRecording(): void {
    this.#recording = false;
  }

  /** Sends no more of the remembered reads (those in flight finish; their answers stay usable). */
  stop(): void {
    this.#waiting.clear();
  }

  /**
   * Remembers the GETs recorded, in `file` (mode 0600), for the next `prefetch`; best effort: a cache
   * that cannot be written costs the next run its hint.
   */
  save(file: string): void {
    writeJsonFile(file, this.#read);
  }

  get<T = unknown>(path: string, options: Omit<RequestOptions, "body"> = {}): Promise<T> {
    const key = requestKey(path, options.query);
    if (this.#recording) this.#read.push(key);
    const sent = this.#sent.get(key);
    if (sent) {
      this.#sent.delete(key);
      return sent as Promise<T>;
    }
    this.#waiting.delete(key);
    return this.#api.get<T>(path, options);
  }

  /** Sends remembered reads while fewer than `IN_FLIGHT` are in flight. */
  #pump(): void {
    for (const key of this.#waiting) {
      if (this.#inFlight >= IN_FLIGHT) break;
      this.#waiting.delete(key);
      const { path, query } = parseRequestKey(key);
      this.#inFlight++;
      const read = this.#api.get(path, query ? { query } : {});
      this.#sent.set(key, read);
      // Its failure belongs to the refresh that asks for it; one never asked for is dropped.
      read
        .catch(() => {})
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<T> {
    return this.#api.request<T>(method, path, options);
  }
  post<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.#api.post<T>(path, body, options);
  }
  put<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.#api.put<T>(path, body, options);
  }
  patch<T = unknown>(path: string, body: unknown, options?: Omit<RequestOptions, "body">): Promise<T> {
    return this.#api.patch<T>(path, body, options);
  }
  delete(path: string, options?: Omit<RequestOptions, "body">): Promise<void> {
    return this.#api.delete(path, options);
  }
  list<T = unknown>(
    path: string,
    listKey: string,
    options?: ListOptions,
  ): AsyncGenerator<T, void, undefined> {
    return this.#api.list<T>(path, listKey, options);
  }
  listAll<T = unknown>(path: string, listKey: string, options?: ListOptions): Promise<T[]> {
    return this.#api.listAll<T>(path, listKey, options);
  }
}

/** A GET as one text: the path, then its defined query parameters in the order given. */
function requestKey(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.append(name, String(value));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** `requestKey` read back. */
function parseRequestKey(key: string): { path: string; query?: Query } {
  const q = key.indexOf("?");
  if (q < 0) return { path: key };
  return { path: key.slice(0, q), query: Object.fromEntries(new URLSearchParams(key.slice(q + 1))) };
}
