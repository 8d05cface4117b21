/**
 * Refresh: reading live state with as few requests as possible.
 *
 * - One paginated list per collection kind (100 per page), never a GET per resource. With
 *   `ownership: marker` every collection kind is listed (a handful of calls), so that this stack's
 *   objects are found through their markers even when the state file is lost; with `state-only`, only
 *   the kinds the configuration or the state uses.
 * - One GET per module path the configuration names or the state records (a 404 means "not set"),
 *   and after a 404 one GET of the module's parent (edge or route; once per parent), so that a
 *   mistyped edge or route id is reported at plan time (./parents.ts) instead of failing apply.
 *
 * Kinds are listed and modules read concurrently, at most `concurrency` at a time (the client's rate
 * limiter still applies to every request).
 */
import { setMaxListeners } from "node:events";
import pLimit from "p-limit";
import { type Api, ApiError } from "../client/index.js";
import type { DesiredState } from "../model/desired.js";
import { collections, getKind } from "../model/index.js";
import type { StateSnapshot } from "../state/store.js";
import { emptyLiveState, type LiveState, liveObject } from "./live.js";
import { modulePath } from "./ownership.js";

/** What to read: collection kinds to list, and module paths (with their kinds) to GET. */
export interface RefreshScope {
  kinds: string[];
  modules: { path: string; kind: string }[];
}

/**
 * The kinds and module paths a plan of `desired` against `state` needs (see the module comment).
 * With `destroy`, modules of the configuration that the state does not record are left out.
 */
export function refreshScope(desired: DesiredState, state: StateSnapshot, destroy = false): RefreshScope {
  const kinds = new Set<string>();
  const modules = new Map<string, string>();
  if (desired.ownership === "marker") for (const k of collections().values()) kinds.add(k.kind);
  for (const r of destroy ? [] : desired.resources) {
    if (getKind(r.kind).module) modules.set(modulePath(r), r.kind);
    else kinds.add(r.kind);
  }
  for (const record of Object.values(state.resources)) {
    if (getKind(record.kind).module) modules.set(record.id, record.kind);
    else kinds.add(record.kind);
  }
  return {
    kinds: [...kinds].sort(),
    modules: [...modules.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, kind]) => ({ path, kind })),
  };
}

/** Options of `refresh`. */
export interface RefreshOptions {
  signal?: AbortSignal;
  /** Lists and module reads in flight at once; default 16. */
  concurrency?: number;
}

/**
 * Reads the live objects of `scope`.
 * @throws ApiError / NetworkError from the client (a module's 404 is not an error: the module is not set).
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
  for (const kindName of scope.kinds) {
    const kind = getKind(kindName);
    if (!kind.listKey) throw new Error(`kind ${kindName} has no list operation`);
    const listKey = kind.listKey;
    read(async () => {
      for await (const item of api.list<Record<string, unknown>>(kind.path, listKey, {
        limit: 100,
        signal,
      })) {
        const id = item.id;
        if (typeof id === "string") live.objects.set(id, liveObject(kindName, id, item));
      }
      live.listedKinds.add(kindName);
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
  if (first) throw first.error;
  options.signal?.throwIfAborted();
  return live;
}

/** The API path of a module's parent object: `/edges/https/E/routes/R/saml` -> `/edges/https/E/routes/R`. */
export function parentPath(modulePath: string): string {
  return modulePath.slice(0, modulePath.lastIndexOf("/"));
}

/** GET a module (or any object); undefined when it is not set (404). */
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
