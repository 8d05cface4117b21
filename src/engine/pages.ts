/**
 * A kind's list read with the page cursors remembered from its last read (issue 30 §1): over a link
 * with a long round trip, the pages of a big kind one after another cost one round trip each; with
 * the cursor (`before_id`) of every page known in advance they are asked for at once.
 *
 * The cursors are only a hint, kept in the user's cache directory (`pages/`, one file per API URL and
 * key, never the key) and checked on every read: each page must reach the cursor the next page starts
 * from (or the first item of the next page, when that cursor's object was deleted); where objects were
 * created in between, the pages that fill the gap are read one after another, and a cursor the API
 * refuses (400) makes the kind read as a plain list. The result is the whole list, as a plain read
 * gives it (items in list order, an item that two pages both hold given once).
 */
import { join } from "node:path";
import { hashedJsonFile, readJsonFile, userCacheDir, writeJsonFile } from "../cache-dir.js";
import { type Api, ApiError, pageItems } from "../client/index.js";
import type { KindDescriptor } from "../model/index.js";
import type { StateApi } from "../state/store.js";
import { PAGE_SIZE } from "./listing.js";

type Item = Record<string, unknown>;

/** The page cursors of each kind (the `before_id` of every page after the first), by kind name. */
export interface PageCursors {
  get(kind: string): readonly string[] | undefined;
  set(kind: string, cursors: string[]): void;
  /** Writes what was set (best effort: a cache that cannot be written costs the next run its hint). */
  save(): void;
}

/**
 * The page cursors remembered for `api` (its URL and key fingerprint) under `$TGW_CACHE_DIR` (else
 * `$XDG_CACHE_HOME/tgw`, else `~/.cache/tgw`) `/pages/`. A missing or unreadable file holds none.
 */
export function openPageCursors(
  api: StateApi,
  env: Record<string, string | undefined> = process.env,
): PageCursors {
  const file = hashedJsonFile(join(userCacheDir(env), "pages"), ["tgw-page-cursors", api.url, api.key ?? ""]);
  const data = readJsonFile(file);
  const kinds = (typeof data === "object" && data !== null ? data : {}) as Record<string, string[]>;
  let changed = false;
  return {
    get: (kind) => (Array.isArray(kinds[kind]) ? kinds[kind] : undefined),
    set: (kind, cursors) => {
      changed ||= JSON.stringify(kinds[kind]) !== JSON.stringify(cursors);
      kinds[kind] = cursors;
    },
    save: () => {
      if (changed) writeJsonFile(file, kinds);
    },
  };
}

/** One page: its items, and whether more follow. */
interface Page {
  items: Item[];
  more: boolean;
}

/**
 * Every item of `kind`'s list, reading its pages at once where `cursors` (see the module comment)
 * tell where they start; `run` bounds the pages in flight. Returns the cursors for the next read too.
 * @throws ApiError / NetworkError from the client; ApiError when a page has no list under `listKey`.
 */
export async function readPages(
  api: Api,
  kind: KindDescriptor & { listKey: string },
  cursors: readonly string[],
  run: <T>(read: () => Promise<T>) => Promise<T>,
  signal: AbortSignal,
): Promise<{ items: Item[]; cursors: string[] }> {
  let pages: Page[];
  try {
    pages = await Promise.all([undefined, ...cursors].map((c) => run(() => page(api, kind, c, signal))));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 400)) throw err;
    pages = [await page(api, kind, undefined, signal)];
    cursors = [];
  }
  const items: Item[] = [];
  for (let j = 0; j < pages.length; j++) {
    let current = pages[j] as Page;
    items.push(...current.items);
    const next = cursors[j];
    const first = pages[j + 1]?.items[0]?.id;
    // Read on, one page after another, until this page reaches where the next one starts.
    const reached = (p: Page) => next !== undefined && p.items.some((i) => i.id === next || i.id === first);
    while (current.more && current.items.length > 0 && !reached(current)) {
      current = await page(api, kind, lastId(current), signal);
      items.push(...current.items);
    }
    if (!current.more) break;
  }
  const unique = [...new Map(items.map((i) => [i.id, i])).values()];
  const next: string[] = [];
  for (let i = PAGE_SIZE - 1; i < unique.length - 1; i += PAGE_SIZE) next.push(String(unique[i]?.id));
  return { items: unique, cursors: next };
}

/** The page of `kind`'s list after `beforeId` (the first without). */
async function page(
  api: Api,
  kind: KindDescriptor & { listKey: string },
  beforeId: string | undefined,
  signal: AbortSignal,
): Promise<Page> {
  const query = { limit: PAGE_SIZE, ...(beforeId === undefined ? {} : { before_id: beforeId }) };
  const body = await api.get<Item>(kind.path, { query, signal });
  const items = pageItems(body, kind.listKey, kind.path, 200) as Item[];
  return { items, more: typeof body.next_page_uri === "string" };
}

function lastId(p: Page): string {
  return String(p.items[p.items.length - 1]?.id);
}
