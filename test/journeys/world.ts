/**
 * The system under test of the journey tests (./journeys.test.ts) and the invariants they check.
 *
 * One `World` per run: a stack of its own on a reference server shared by the file, two workspaces
 * (a directory each, holding `.tgw/state.json` and `.tgw/secrets/`) and the in-process engine
 * (`reconcile`, `importResource`), exactly as `tgw apply`, `tgw import`, `tgw state mv|rm` and
 * `tgw watch` drive it. The `Model` is what a careful user knows: the configuration (desired addresses,
 * their descriptions, the `moved:` entries) and, for every address seen applied, the id of its object.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { moveRecord, removeRecords } from "../../src/cli/commands/state.js";
import { type Api, type ApiClient, ApiError } from "../../src/client/index.js";
import { importResource } from "../../src/engine/adopt.js";
import {
  type EngineEvent,
  hasChanges,
  liveObject,
  type Plan,
  type ReconcileOptions,
  type ReconcileResult,
  reconcile,
  UnsafePlanError,
} from "../../src/engine/index.js";
import { UsageError } from "../../src/errors.js";
import type { DesiredState } from "../../src/model/desired.js";
import { collections, decodeMetadata } from "../../src/model/index.js";
import { FileStateStore } from "../../src/state/index.js";
import { res } from "../engine/builders.js";
import type { TestServer } from "../helpers/server.js";

/** The collections the journeys use (configuration keys): kinds with metadata that need no fixtures. */
export const COLLECTIONS = ["api_keys", "tunnel_group_backends"] as const;

/** What the user knows: the configuration, and the object of each address as last applied. */
export interface Model {
  /** The configuration: address -> description. */
  desired: Map<string, string>;
  /** `moved:` entries as written (those that no longer fit the configuration are left out of it). */
  moved: { from: string; to: string }[];
  /** Addresses with a `removed:` entry (those the configuration has again are left out of it). */
  removed: Set<string>;
  /** Id -> address of each object a `removed:` entry keeps: it must stay live, without this stack's marker. */
  kept: Map<string, string>;
  /** Address -> id of its object after the last successful apply (or import). */
  ids: Map<string, string>;
  /** Addresses whose object may be another one at the next check (deleted by hand, planned replace...). */
  mayChange: Set<string>;
  /**
   * Addresses renamed with `state mv` whose object still carries the old address's marker (until an
   * apply rewrites it): if the record is lost before that, the marker names the old address, which
   * the next apply prunes (docs/state.md: rename the resource in the configuration too).
   */
  unmarked: Set<string>;
  /**
   * `<workspace>:<address>:<id>` of every key a run reported `token_lost`: a token file left by a
   * deleted key is only known as such while the state still records that key, so it is reported once.
   */
  lostTold: Set<string>;
  /**
   * Ids some workspace's state has recorded (./commands.ts notes them after every command): an object
   * no state records any more (`tgw state rm`, an older copy, another workspace's) is left alone, but
   * an unrecorded object no state ever recorded was lost track of: a duplicate or an orphan.
   */
  seen: Set<string>;
}

/** A workspace: a checkout of the configuration with its own state file and token files. */
export interface Workspace {
  name: string;
  dir: string;
  statePath: string;
}

/** One run's system: stack, workspaces, the watch's long-lived store, old copies of the state. */
export interface World {
  server: TestServer;
  api: ApiClient;
  stack: string;
  root: string;
  main: Workspace;
  second: Workspace;
  /** The store `tgw watch` keeps open across ticks, and the version it last saw (`restartVersion`). */
  watch: { store?: FileStateStore; version?: { lineage: string; serial: number } };
  /** Texts of the main state file after each successful apply (for "restore an older copy"). */
  copies: string[];
  /** Ids of unmanaged objects made by `import` commands (deleted when the run ends). */
  unmanaged: { path: string; id: string }[];
}

export function newModel(): Model {
  return {
    desired: new Map(),
    moved: [],
    removed: new Set(),
    kept: new Map(),
    ids: new Map(),
    mayChange: new Set(),
    unmarked: new Set(),
    lostTold: new Set(),
    seen: new Set(),
  };
}

/** `api_keys.a` -> the kind descriptor of its collection. */
export function kindOf(address: string) {
  const key = address.slice(0, address.indexOf("."));
  const kind = collections().get(key);
  if (!kind) throw new Error(`no collection ${key}`);
  return kind;
}

/** The `moved:` entries the configuration can hold (checkMoved's rules), each resolved to its chain's end. */
export function validMoves(model: Model): { from: string; to: string }[] {
  const next = new Map(model.moved.map((m) => [m.from, m.to]));
  const final = (to: string) => {
    const seen = new Set<string>();
    let at = to;
    while (!model.desired.has(at) && next.has(at) && !seen.has(at)) {
      seen.add(at);
      at = next.get(at) as string;
    }
    return at;
  };
  const out: { from: string; to: string }[] = [];
  const from = new Set<string>();
  for (const m of model.moved) {
    const to = final(m.to);
    if (!model.desired.has(to) || model.desired.has(m.from) || from.has(m.from)) continue;
    from.add(m.from);
    out.push({ from: m.from, to });
  }
  return out;
}

/** The desired state of the configuration as `workspace` loads it. */
export function desiredOf(world: World, model: Model, workspace: Workspace): DesiredState {
  const resources = [...model.desired]
    .map(([address, description]) => res(address, { description }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
  const moved = validMoves(model);
  // checkRemoved's rules: not configured, not a `moved:` entry's `from`.
  const removed = [...model.removed]
    .filter((a) => !model.desired.has(a) && !moved.some((m) => m.from === a))
    .sort();
  return {
    stack: world.stack,
    ownership: "marker",
    resources,
    files: [join(workspace.dir, "tgw.yaml")],
    configDir: workspace.dir,
    ...(moved.length > 0 ? { moved } : {}),
    ...(removed.length > 0 ? { removed } : {}),
  };
}

/** A state store as a new `tgw` process opens it. */
export function storeOf(world: World, workspace: Workspace): FileStateStore {
  return new FileStateStore(workspace.statePath, { stack: world.stack, warn: () => {} });
}

/** Token file of an API key address in a workspace (the default `.tgw/secrets/<name>.token`). */
export function tokenFile(workspace: Workspace, address: string): string {
  return join(workspace.dir, ".tgw", "secrets", `${address.slice(address.indexOf(".") + 1)}.token`);
}

/** One reconcile and the events it reported. */
export interface Run {
  result: ReconcileResult;
  events: EngineEvent[];
}

/** Replaces on every planned change are remembered: such an object may legitimately be a new one. */
export function noteReplaces(model: Model, events: EngineEvent[]): void {
  for (const e of events) {
    if (e.type !== "planned") continue;
    for (const c of e.plan.changes) if (c.action === "replace") model.mayChange.add(c.address);
  }
}

/** `reconcile` in `workspace`, collecting events; replaces it plans are noted in the model. */
export async function run(
  world: World,
  model: Model,
  workspace: Workspace,
  options: ReconcileOptions,
  extra: { api?: Api; signal?: AbortSignal; store?: FileStateStore } = {},
): Promise<Run> {
  const events: EngineEvent[] = [];
  try {
    const result = await reconcile({
      desired: desiredOf(world, model, workspace),
      api: extra.api ?? world.api,
      store: extra.store ?? storeOf(world, workspace),
      options,
      ...(extra.signal ? { signal: extra.signal } : {}),
      onEvent: (e) => events.push(e),
    });
    return { result, events };
  } finally {
    noteReplaces(model, events);
  }
}

/**
 * `tgw apply`, then the command its refusal documents: `--takeover` for markers the state has not
 * seen (a lost or older state, another workspace), `--allow-empty` for an empty configuration.
 * Returns the run that applied.
 */
export async function applyAsDocumented(
  world: World,
  model: Model,
  workspace: Workspace,
  options: ReconcileOptions = {},
): Promise<Run & { refused: string[] }> {
  const refused: string[] = [];
  let opts: ReconcileOptions = { ...options, mode: "apply" };
  for (;;) {
    try {
      return { ...(await run(world, model, workspace, opts)), refused };
    } catch (err) {
      if (!(err instanceof UnsafePlanError) || refused.length > 2) throw err;
      const rules = err.reasons.map((r) => r.rule);
      if (rules.some((r) => r !== "foreign_lineage" && r !== "empty_desired_state")) throw err;
      refused.push(...rules);
      opts = {
        ...opts,
        ...(rules.includes("foreign_lineage") ? { takeover: true } : {}),
        ...(rules.includes("empty_desired_state") ? { allowEmpty: true } : {}),
      };
    }
  }
}

/** A live object of the stack: its id, kind path and the address its marker names. */
export interface Owned {
  id: string;
  path: string;
  address: string;
  lineage?: string;
}

/** Every live object carrying this stack's marker (decoded with `decodeMetadata`). */
export async function ownedObjects(world: World): Promise<Owned[]> {
  const out: Owned[] = [];
  for (const key of COLLECTIONS) {
    const kind = kindOf(`${key}.x`);
    const items = await world.api.listAll<Record<string, unknown>>(kind.path, kind.listKey as string, {
      limit: 100,
    });
    for (const item of items) {
      const { marker } = decodeMetadata(typeof item.metadata === "string" ? item.metadata : "");
      if (marker?.stack !== world.stack) continue;
      out.push({
        id: String(item.id),
        path: kind.path,
        address: marker.address,
        ...(marker.lineage ? { lineage: marker.lineage } : {}),
      });
    }
  }
  return out.sort((a, b) => a.address.localeCompare(b.address) || a.id.localeCompare(b.id));
}

/** Thrown when an invariant does not hold: the message says which and shows the evidence. */
export class InvariantError extends Error {}

function fail(message: string): never {
  throw new InvariantError(message);
}

/**
 * The invariants after a successful apply in `workspace` (docs/state.md > Identity):
 * - the state records exactly the desired addresses (no pending create, no deposed object left), one
 *   object each, and each recorded object is live and carries the stack's marker for its address;
 * - an address's object is the one the model knows (never deleted or recreated) unless the model
 *   allows it to change (deleted by hand, a planned replace, a lost record of an unapplied state mv);
 * - every other live object carrying the stack's marker was recorded by some state before (left alone
 *   after `tgw state rm`, an older copy, another workspace): none was lost track of;
 * - tokens: a kept API key whose token file is missing was reported `token_lost`, a key reported lost
 *   has no token file, and a token file that is there holds the token of its address's key;
 * - the next plan has no changes, forgets nothing and sees no claim the state has not seen.
 * Then the model learns the ids.
 */
export async function checkConverged(world: World, model: Model, workspace: Workspace, applied: Run) {
  const state = await storeOf(world, workspace).read();
  const recorded = Object.values(state.resources);
  const desired = [...model.desired.keys()].sort();
  const addresses = recorded.map((r) => r.address).sort();
  if (desired.join() !== addresses.join())
    fail(`the state records ${JSON.stringify(addresses)}, the configuration has ${JSON.stringify(desired)}`);
  const owned = await ownedObjects(world);
  const live = new Map(owned.map((o) => [o.id, o]));
  const ids = new Set<string>();
  for (const r of recorded) {
    if (ids.has(r.id)) fail(`${r.id} is recorded twice`);
    ids.add(r.id);
    const o = live.get(r.id);
    if (o?.address !== r.address)
      fail(
        `${r.address} records ${r.id}, which ${o ? `carries the marker of ${o.address}` : "is not live with the stack's marker"}`,
      );
  }
  // The model knows the main workspace's objects; another workspace's state keeps its own view.
  const main = workspace === world.main;
  for (const [address, id] of main ? model.ids : []) {
    if (!model.desired.has(address) || model.mayChange.has(address)) continue;
    const now = state.resources[address]?.id;
    if (now !== id) fail(`${address} was ${id} and is now ${now}: deleted or recreated without a replace`);
  }
  // An object the apply reports as left alone (`unmanaged`: say, made by a create a lost state had
  // only as pending, its marker naming an address no longer configured) is not lost track of.
  const reported = new Set(applied.result.plan.unmanaged?.map((u) => u.id));
  const strays = owned.filter((o) => !ids.has(o.id) && !model.seen.has(o.id) && !reported.has(o.id));
  if (strays.length > 0)
    fail(`live objects no state ever recorded (lost track of): ${strays.map((o) => `${o.address}=${o.id}`)}`);
  await checkKept(world, model);
  await checkTokens(world, model, workspace, applied, "apply");
  const next = await run(world, model, workspace, { mode: "plan" });
  const { plan } = next.result;
  if (hasChanges(plan) || plan.forget.length > 0 || plan.foreignLineages)
    fail(`the plan after apply is not empty: ${describePlan(plan)}`);
  await checkTokens(world, model, workspace, next, "the next plan");
  for (const r of recorded) model.seen.add(r.id);
  if (!main) return;
  model.ids = new Map(recorded.map((r) => [r.address, r.id]));
  model.mayChange.clear();
  model.unmarked.clear();
}

/** Notes the ids every workspace's state records now (`Model.seen`). */
export async function noteRecorded(world: World, model: Model): Promise<void> {
  for (const w of [world.main, world.second]) {
    if (!existsSync(w.statePath)) continue;
    const state = await storeOf(world, w)
      .read()
      .catch(() => undefined);
    for (const r of Object.values(state?.resources ?? {}))
      if (!r.address.includes("#pending")) model.seen.add(r.id);
  }
}

/** Every object a `removed:` entry keeps is live and carries no marker of this stack. */
async function checkKept(world: World, model: Model): Promise<void> {
  for (const [id, address] of model.kept) {
    const kind = kindOf(address);
    const raw = await world.api
      .get<Record<string, unknown>>(`${kind.path}/${id}`)
      .catch((err: unknown) =>
        err instanceof ApiError && err.status === 404 ? undefined : Promise.reject(err),
      );
    if (raw === undefined) fail(`${address}'s object ${id}, kept by a removed: entry, was deleted`);
    const marker = liveObject(kind.kind, id, raw as Record<string, unknown>).marker;
    if (marker?.stack === world.stack)
      fail(
        `${address}'s object ${id}, kept by a removed: entry, still carries the marker of ${marker.address}`,
      );
  }
}

/** A plan in one line: `address action (reason)`, forgotten addresses, other lineages. */
export function describePlan(plan: Plan): string {
  const changes = plan.changes
    .filter((c) => c.action !== "no-op")
    .map((c) => `${c.address} ${c.action} (${c.reason})`);
  return [
    ...changes,
    ...(plan.forget.length ? [`forget ${plan.forget.join(", ")}`] : []),
    ...(plan.foreignLineages ? [`foreign lineages ${JSON.stringify(plan.foreignLineages.others)}`] : []),
  ].join("; ");
}

/**
 * The token invariant over one completed run in `workspace` (see `checkConverged`): a token file
 * holds the token of the key now at its address (the server says whose token it is), or the run
 * reported that key's token lost (now or earlier); a key reported lost has no such token file.
 */
export async function checkTokens(world: World, model: Model, workspace: Workspace, done: Run, what: string) {
  const lost = new Map<string, string>();
  for (const e of done.events) {
    if (e.type !== "token_lost") continue;
    lost.set(e.address, e.id);
    model.lostTold.add(`${workspace.name}:${e.address}:${e.id}`);
  }
  const records = (await storeOf(world, workspace).read()).resources;
  for (const address of model.desired.keys()) {
    if (!address.startsWith("api_keys.")) continue;
    const id = records[address]?.id;
    const file = tokenFile(workspace, address);
    const text = existsSync(file) ? await readFile(file, "utf8") : undefined;
    const whose = text !== undefined && /^\S+\n$/.test(text) ? world.server.keyOf(text.trim()) : undefined;
    if (lost.has(address)) {
      if (whose !== undefined && whose === lost.get(address))
        fail(`${what} reported the token of ${address} lost, but ${file} holds it`);
      continue;
    }
    if (id === undefined) continue;
    if (text === undefined)
      fail(`${what}: the token of ${address} (${id}) is lost without a token_lost event`);
    if (whose !== id && !model.lostTold.has(`${workspace.name}:${address}:${id}`))
      fail(
        `${what}: ${file} holds ${whose === undefined ? "no live key's token" : `the token of ${whose}`}, not the token of ${address} (${id}), which was never reported lost`,
      );
  }
}

/**
 * A SIGKILL of an apply, in process (./commands.ts `KilledApply`): an `Api` whose `after`-th call is
 * sent (its effect happens) but whose answer, and every later call, never comes; and a state store that
 * writes nothing once the kill came and releases the apply's lock then (a dead holder's lock is taken
 * over at once). `dead` resolves at the kill.
 */
export function killing(
  api: Api,
  store: FileStateStore,
  after: number,
): { api: Api; store: FileStateStore; dead: Promise<void> } {
  const never = new Promise<never>(() => {});
  let killed = false;
  let calls = 0;
  let onKill = () => {};
  const dead = new Promise<void>((resolve) => {
    onKill = resolve;
  });
  const unlocks: (() => Promise<void>)[] = [];
  const kill = () => {
    killed = true;
    for (const unlock of unlocks) void unlock();
    onKill();
  };
  const gate = <T>(call: () => Promise<T>): Promise<T> => {
    if (killed) return never;
    if (++calls < after) return call();
    call().catch(() => {}); // sent: the server acts on it; its answer is lost with the process
    kill();
    return never;
  };
  // A list whose first page never comes (a generator that waits instead of yielding).
  const hung = async function* (): AsyncGenerator<never> {
    yield await never;
  };
  const gatedList: Api["list"] = (path, listKey, options) => {
    if (!killed && ++calls < after) return api.list(path, listKey, options);
    kill();
    return hung();
  };
  const gated: Api = {
    request: (method, path, options) => gate(() => api.request(method, path, options)),
    get: (path, options) => gate(() => api.get(path, options)),
    post: (path, body, options) => gate(() => api.post(path, body, options)),
    put: (path, body, options) => gate(() => api.put(path, body, options)),
    patch: (path, body, options) => gate(() => api.patch(path, body, options)),
    delete: (path, options) => gate(() => api.delete(path, options)),
    list: gatedList,
    listAll: (path, listKey, options) => gate(() => api.listAll(path, listKey, options)),
  };
  const dying = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "write" || prop === "writeChanges")
        return (...args: unknown[]) => (killed ? never : value.apply(target, args));
      if (prop === "lock")
        return async (...args: unknown[]) => {
          const unlock = await value.apply(target, args);
          unlocks.push(unlock);
          return unlock;
        };
      return value.bind(target);
    },
  });
  return { api: gated, store: dying, dead };
}

/**
 * An `Api` that aborts `controller` as its `after`-th call starts (the call is sent, its response may
 * be lost): an apply interrupted at a chosen API call, as Ctrl-C or a kill would.
 */
export function interrupting(api: Api, after: number, controller: AbortController): Api {
  let calls = 0;
  const tick = <T>(call: T): T => {
    if (++calls === after) controller.abort(new Error(`journey: interrupted at API call ${after}`));
    return call;
  };
  return {
    request: (method, path, options) => tick(api.request(method, path, options)),
    get: (path, options) => tick(api.get(path, options)),
    post: (path, body, options) => tick(api.post(path, body, options)),
    put: (path, body, options) => tick(api.put(path, body, options)),
    patch: (path, body, options) => tick(api.patch(path, body, options)),
    delete: (path, options) => tick(api.delete(path, options)),
    list: (path, listKey, options) => tick(api.list(path, listKey, options)),
    listAll: (path, listKey, options) => tick(api.listAll(path, listKey, options)),
  };
}

/**
 * `tgw state mv FROM TO` in `workspace`, as the CLI does it (src/cli/commands/state.ts `moveRecord`).
 * @returns false when the CLI refuses (FROM not in the state, TO already there): nothing changed.
 */
export async function stateMv(
  world: World,
  workspace: Workspace,
  from: string,
  to: string,
): Promise<boolean> {
  try {
    await moveRecord(storeOf(world, workspace), from, to, 0);
    return true;
  } catch (err) {
    if (err instanceof UsageError) return false;
    throw err;
  }
}

/** `tgw state rm ADDRESS` in `workspace`, as the CLI does it (src/cli/commands/state.ts `removeRecords`). @returns false when the address is not in the state. */
export async function stateRm(world: World, workspace: Workspace, address: string): Promise<boolean> {
  const store = storeOf(world, workspace);
  if ((await store.read()).resources[address] === undefined) return false;
  await removeRecords(store, [address], 0);
  return true;
}

/** The addresses the main state records (read as `tgw state list` does). */
export async function stateAddresses(world: World, workspace: Workspace): Promise<string[]> {
  return Object.keys((await storeOf(world, workspace).read()).resources).sort();
}

/** Deletes the state file, its backup and journal (a lost state). */
export async function loseState(workspace: Workspace): Promise<void> {
  for (const suffix of ["", ".backup", ".journal"]) await rm(workspace.statePath + suffix, { force: true });
}

/** Puts `text` in place of the state file (an older copy restored by hand; the journal moved away). */
export async function restoreState(workspace: Workspace, text: string): Promise<void> {
  await mkdir(dirname(workspace.statePath), { recursive: true });
  await rm(`${workspace.statePath}.journal`, { force: true });
  await writeFile(workspace.statePath, text, { mode: 0o600 });
}

/** Keeps a copy of the main state file (called after each successful apply). */
export async function keepCopy(world: World): Promise<void> {
  if (existsSync(world.main.statePath)) world.copies.push(await readFile(world.main.statePath, "utf8"));
}

/** Imports the object `id` as `address` in the main workspace (`tgw import`). */
export async function importAs(world: World, model: Model, address: string, id: string) {
  return importResource({
    desired: desiredOf(world, model, world.main),
    api: world.api,
    store: storeOf(world, world.main),
    address,
    id,
  });
}

/** Deletes what the run left on the server: the stack's objects and the unmanaged ones it made. */
export async function cleanUp(world: World): Promise<void> {
  const gone = async (path: string) =>
    world.api.delete(path).catch((err) => {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    });
  for (const o of await ownedObjects(world)) await gone(`${o.path}/${o.id}`);
  for (const o of world.unmanaged) await gone(`${o.path}/${o.id}`);
  await rm(world.root, { recursive: true, force: true });
}
