/**
 * Refresh: reading live state with as few requests as possible (docs/state.md > What a refresh reads).
 *
 * - A collection kind is read by whichever costs fewer requests: one GET per object the state records,
 *   or the pages of its list (100 per page, counted from the objects the kind held when last listed,
 *   `StateListing.counts`). Ties, and kinds never listed, go to the list, which shows more.
 * - With `ownership: marker` a kind is listed whole when it may hold objects carrying this stack's
 *   marker that no record names, since those are found only through their markers: a configured
 *   address of the kind has no record (adopt it rather than create it again), the state was never
 *   written, or a pending create of the kind is to be resolved by its create id (./pending.ts), or the
 *   state says so (`StateListing.unrecorded`: a state put back by hand, whose objects' newer claims
 *   must be seen), or a `removed:` entry names an address of the kind (objects may carry its marker,
 *   which the entry takes out). A kind neither configured, recorded, removed nor unrecorded is not
 *   read at all. A recorded object is its record's whatever its marker says (./ownership.ts): a
 *   re-marked one needs no list.
 * - A kind read by GETs is listed too when one of its recorded objects is gone: the plan would make it
 *   again, and an object marked for the address since is adopted (or another workspace's refused).
 * - One GET per module path the configuration names or the state records (a 404 means "not set"),
 *   and after a 404 one GET of the module's parent (edge or route; once per parent), so that a
 *   mistyped edge or route id is reported at plan time (./parents.ts) instead of failing apply.
 *
 * Kinds are listed, objects and modules read concurrently, at most `concurrency` at a time (the
 * client's rate limiter still applies to every request).
 */
import { setMaxListeners } from "node:events";
import pLimit from "p-limit";
import { type Api, ApiError } from "../client/index.js";
import { parseAddress } from "../model/address.js";
import type { DesiredState } from "../model/desired.js";
import { collections, getKind } from "../model/index.js";
import type { StateSnapshot } from "../state/store.js";
import { readsByGet, unrecordedKinds } from "./listing.js";
import { emptyLiveState, type LiveState, liveObject } from "./live.js";
import { modulePath } from "./ownership.js";
import { type PageCursors, readPages } from "./pages.js";
import { PENDING_SUFFIX } from "./pending.js";

/** What to read: collection kinds to list, objects to GET one by one, module paths to GET. */
export interface RefreshScope {
  kinds: string[];
  /** With the address the state records each for (or an `import:` entry names). */
  objects: { id: string; kind: string; address: string }[];
  modules: { path: string; kind: string }[];
}

/**
 * The kinds, objects and module paths a plan of `desired` against `state` needs (see the module
 * comment). With `destroy`, the configuration's resources are left out.
 */
export function refreshScope(desired: DesiredState, state: StateSnapshot, destroy = false): RefreshScope {
  const marker = desired.ownership === "marker";
  const mustList = marker ? unrecordedKinds(state) : new Set<string>();
  // Per kind: the ids to read, each with its address.
  const ids = new Map<string, Map<string, string>>();
  const modules = new Map<string, string>();
  const idsOf = (kind: string) => {
    const map = ids.get(kind) ?? new Map<string, string>();
    ids.set(kind, map);
    return map;
  };
  for (const r of destroy ? [] : desired.resources) {
    if (getKind(r.kind).module) modules.set(modulePath(r), r.kind);
    else {
      idsOf(r.kind);
      if (marker && state.resources[r.address] === undefined) mustList.add(r.kind);
    }
  }
  // A `removed:` entry, recorded or not: every object carrying its marker (one made by another
  // workspace too) is found only by listing its kind, and the entry takes those markers out; the plan
  // after its apply (no record then) reads the same.
  for (const address of marker ? (desired.removed ?? []) : []) {
    const kind = collectionKind(address);
    if (kind) mustList.add(kind);
  }
  for (const record of Object.values(state.resources)) {
    if (getKind(record.kind).module) modules.set(record.id, record.kind);
    // A pending create is found by its create id, in its kind's list (./pending.ts).
    else if (record.address.endsWith(PENDING_SUFFIX)) mustList.add(record.kind);
    else idsOf(record.kind).set(record.id, record.address);
  }
  // An `import:` entry's object is read whatever its kind's choice: the plan adopts it by id.
  const kindOf = new Map(desired.resources.map((r) => [r.address, r.kind]));
  for (const { to, id } of destroy ? [] : (desired.imports ?? [])) {
    const kind = kindOf.get(to);
    if (kind !== undefined && !getKind(kind).module) idsOf(kind).set(id, to);
  }
  for (const kind of mustList) idsOf(kind);
  const kinds: string[] = [];
  const objects: RefreshScope["objects"] = [];
  for (const [kind, kindIds] of ids) {
    if (!mustList.has(kind) && readsByGet(kindIds.size, state.listing?.counts[kind]))
      for (const [id, address] of kindIds) objects.push({ id, kind, address });
    else kinds.push(kind);
  }
  return {
    kinds: kinds.sort(),
    objects: objects.sort((a, b) => (a.id < b.id ? -1 : 1)),
    modules: [...modules.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, kind]) => ({ path, kind })),
  };
}

/** The collection kind of a resource address (`api_keys.ci` -> `api_key`), if any. */
function collectionKind(address: string): string | undefined {
  const collection = parseAddress(address)?.collection;
  return collection === undefined ? undefined : collections().get(collection)?.kind;
}

/** Options of `refresh`. */
export interface RefreshOptions {
  signal?: AbortSignal;
  /** Lists and module reads in flight at once, and pages of lists; default 16. */
  concurrency?: number;
  /** Where each kind's pages started at its last read: its pages are then asked for at once (./pages.ts). */
  pageCursors?: PageCursors;
}

/**
 * Reads the live objects of `scope`.
 * @throws ApiError / NetworkError from the client (a 404 of an object or module is not an error: it
 *   does not exist, or the module is not set).
 */
export async function refresh(
  api: Api,
  scope: RefreshScope,
  options: RefreshOptions = {},
): Promise<LiveState> {
  const live = emptyLiveState();
  const concurrency = options.concurrency ?? 16;
  const limit = pLimit(concurrency);
  // The first failure stops the other reads (their results would be thrown away), before the next
  // read queued starts: an outage then costs the reads in flight, not one request per kind.
  const failed = new AbortController();
  let first: { error: unknown } | undefined;
  const signal = options.signal ? AbortSignal.any([options.signal, failed.signal]) : failed.signal;
  // Each read in flight listens to it (a list's pages one after another): more than Node's default 10.
  setMaxListeners(2 * concurrency + 10, signal);
  const tasks: Promise<void>[] = [];
  const read = (work: () => Promise<void>) =>
    tasks.push(
      limit(async () => {
        if (signal.aborted) return;
        try {
          await work();
        } catch (error) {
          if (!first) {
            first = { error };
            failed.abort(error);
          }
        }
      }),
    );
  const parents = new Map<string, Promise<void>>();
  const checkParent = (path: string): Promise<void> => {
    const parent = parentPath(path);
    let check = parents.get(parent);
    if (!check) {
      check = readModule(api, parent, signal).then((body) => {
        if (!body) live.missingParents.add(parent);
      });
      parents.set(parent, check);
    }
    return check;
  };
  const pages = pLimit(concurrency);
  const list = (kindName: string) =>
    read(() => listInto(live, api, kindName, signal, (f) => pages(f), options.pageCursors));
  for (const kindName of scope.kinds) list(kindName);
  for (const { id, kind } of scope.objects) {
    read(async () => {
      const body = await readModule(api, `${getKind(kind).path}/${encodeURIComponent(id)}`, signal);
      live.readIds.add(id);
      if (body) live.objects.set(id, liveObject(kind, id, body));
    });
  }
  for (const { path, kind } of scope.modules) {
    read(async () => {
      const body = await readModule(api, path, signal);
      live.readModules.add(path);
      if (body) live.modules.set(path, liveObject(kind, path, body));
      else await checkParent(path);
    });
  }
  await Promise.all(tasks);
  // A recorded object found gone is made again by the plan: its kind is listed first, so that an
  // object marked for the address since (adopted) or by another workspace (refused) shows.
  const gone = new Set(scope.objects.filter((o) => !live.objects.has(o.id)).map((o) => o.kind));
  if (!first && gone.size > 0) {
    tasks.length = 0;
    for (const kindName of gone) list(kindName);
    await Promise.all(tasks);
  }
  if (first) throw first.error;
  options.signal?.throwIfAborted();
  return live;
}

/** Lists every object of `kindName` into `live` (./pages.ts), then records the kind as listed. */
async function listInto(
  live: LiveState,
  api: Api,
  kindName: string,
  signal: AbortSignal,
  run: <T>(read: () => Promise<T>) => Promise<T>,
  cursors: PageCursors | undefined,
): Promise<void> {
  const kind = getKind(kindName);
  const { listKey } = kind;
  if (!listKey) throw new Error(`kind ${kindName} has no list operation`);
  const read = await readPages(api, { ...kind, listKey }, cursors?.get(kindName) ?? [], run, signal);
  for (const item of read.items) {
    const id = item.id;
    if (typeof id === "string") live.objects.set(id, liveObject(kindName, id, item));
  }
  cursors?.set(kindName, read.cursors);
  live.listedKinds.add(kindName);
}

/** The API path of a module's parent object: `/edges/https/E/routes/R/saml` -> `/edges/https/E/routes/R`. */
export function parentPath(modulePath: string): string {
  return modulePath.slice(0, modulePath.lastIndexOf("/"));
}

/** GET a module (or any object); undefined when it is not set or does not exist (404). */
export async function readModule(
  api: Api,
  path: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  try {
    return await api.get<Record<string, unknown>>(path, signal ? { signal } : {});
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}
