/**
 * API key tokens (docs/design.md section 3.4): the API returns a key's token once, in the create
 * response. Apply writes it to a file of mode 0600 (default `.tgw/secrets/<name>.token` under the
 * config directory, or the resource's `token_file` option) and nowhere else: never to the state,
 * the plan or logs. Beside it, a sidecar `<token file>.json` says whose token the file holds (key id,
 * the token's digest, the API), so "whose token is this file" is a local read (docs/plan.md > Token
 * files). A token file is never overwritten: a file in the way is set aside, as is a deleted key's.
 */
import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { DesiredResource, DesiredState } from "../model/desired.js";
import {
  configuredTokenFile,
  defaultTokenFile,
  returnsToken,
  shownTokenFile,
  tokenFilePath,
} from "../model/token-file.js";
import type { StateApi, StateRecord, TokenDelivery } from "../state/store.js";
import type { Plan } from "./action.js";
import type { EngineEvent } from "./events.js";
import { describeApi } from "./state-api.js";
import {
  moveTokenFile,
  namesKey,
  sidecarOf,
  sidecarPath,
  sidecarText,
  type TokenSidecar,
  tokenDigest,
  tokenOwner,
  wholeToken,
} from "./token-sidecar.js";
import { writeTokenFile } from "./token-writer.js";

/**
 * Moves `file` (and its sidecar) aside to `<its dir>/removed/<name>.<id>.token` (directory 0700): `id`
 * is the key whose token it holds (a name taken already holds that same token), or for a token no
 * sidecar names, `sha256-<12 hex of it>`. @returns the new path
 */
async function moveAside(file: string, name: string, id: string): Promise<string> {
  const aside = asidePath(file, name, id);
  await moveTokenFile(file, aside);
  return aside;
}

/** `<dir of file>/removed/<name>.<id>.token`: where a token of key `id` is set aside. */
function asidePath(file: string, name: string, id: string): string {
  return join(dirname(file), "removed", `${name}.${id}.token`);
}

/** Where key `key`'s token goes instead of its token file `file` when the new holder of the state owns it. */
export function keyAsidePath(file: string, key: { id: string; address: string }): string {
  return asidePath(file, nameOf(key.address), key.id);
}

/** The id a set-aside token is named by: the key its sidecar names, else `sha256-<12 hex>` of it. */
function holderId(token: string, owner: TokenSidecar | undefined): string {
  return owner?.key_id ?? `sha256-${tokenDigest(token).slice(0, 12)}`;
}

/** Whose token a file set aside held, as the apply says it. */
function holderOf(owner: TokenSidecar | undefined): string {
  if (owner === undefined) return "a key tgw cannot name (no sidecar describes it)";
  return `key ${owner.key_id}${owner.api ? ` of ${describeApi(owner.api)}` : ""}`;
}

/** The name part of an address or plan address (`api_keys.ci`, `api_keys.ci#duplicate:ak_1` -> `ci`). */
const nameOf = (address: string) => (address.split("#")[0] as string).slice(address.indexOf(".") + 1);

/** The default token file of an address that is no longer in the configuration (a `moved:` `from`). */
export function defaultTokenPath(address: string, configDir: string): string {
  return defaultTokenFile(resolve(configDir), nameOf(address));
}

/**
 * Writes the token of the new key `id` to `file` with its sidecar (./token-writer.ts: the sidecar
 * first). A whole token already there is never overwritten: it is set aside first (the key it names
 * may be live, on this API or another); a file holding no whole token is removed.
 * @returns the path the old token went to and whose it is, when one was set aside
 * @throws Error from the file system
 */
export async function writeKeyToken(
  file: string,
  token: string,
  key: { id: string; address: string; api: StateApi | undefined },
  inThread = false,
): Promise<{ path: string; holder: string } | undefined> {
  // A stat, not a read, per new key: the usual new file costs no read (and a FIFO never blocks here).
  const aside = existsSync(file) ? await clearFor(file, key.address) : undefined;
  await writeTokenFile(file, token, sidecarText(key.id, token, key.address, key.api), inThread);
  return aside;
}

/**
 * Clears `file` for the token of the key at `address`: a whole token there is set aside (the key it
 * names may be live); a file holding none is removed. @returns where a token went and whose it is
 */
async function clearFor(
  file: string,
  address: string,
): Promise<{ path: string; holder: string; owner?: string } | undefined> {
  const { token, owner } = tokenOwner(file);
  if (token === undefined) {
    await rm(file, { force: true });
    return undefined;
  }
  const path = await moveAside(file, nameOf(address), holderId(token, owner));
  return { path, holder: holderOf(owner), ...(owner ? { owner: owner.key_id } : {}) };
}

/**
 * Takes back a `writeKeyToken` that turned out to be made after this run's state lock was lost (the
 * new holder owns `file`): the token just written goes aside (`removed/<name>.<id>.token`), and the
 * file it displaced (`displaced`, set aside by `writeKeyToken`) goes back in place. @returns the path
 * the token went to
 */
export async function takeBackKeyToken(
  file: string,
  key: { id: string; address: string },
  displaced: string | undefined,
): Promise<string> {
  const aside = await moveAside(file, nameOf(key.address), key.id);
  if (displaced !== undefined) await moveTokenFile(displaced, file);
  return aside;
}

/**
 * Sets aside key `id`'s token file, a key deleted (its token is dead and must not pass for another
 * key's) or one a `removed:` entry stops managing (it lives on: found again if it is managed again):
 * `file` when it holds the key's token (its sidecar says so, or, a file from before sidecars, its
 * token's digest is `digest`, the one the key's record keeps), else a file of its directory whose
 * sidecar names the key (its token did not follow a `tgw state mv` yet) and that is none of `taken`
 * (the token files this apply's creates may be writing at the same time), to
 * `removed/<name>.<id>.token` beside it. `index` is the run's `sidecarIndex` (each directory read once
 * however many keys are looked for). @returns the new path, or undefined when no file holds that
 * key's token
 * @throws Error from the file system (EACCES...)
 */
export async function setAsideKeysToken(
  file: string,
  address: string,
  id: string,
  digest: string | undefined,
  taken: ReadonlySet<string>,
  index: SidecarIndex,
): Promise<string | undefined> {
  const { token, owner, sidecar } = tokenOwner(file);
  const legacy = sidecar === undefined && token !== undefined && tokenDigest(token) === digest;
  if (owner?.key_id === id || legacy) return moveAside(file, nameOf(address), id);
  const holders = await index(dirname(file));
  const found = holders.get(id);
  if (found === undefined || taken.has(found)) return undefined;
  holders.delete(id);
  return moveAside(found, nameOf(address), id);
}

/** Directory -> the files of it holding the token their sidecar names, by key id (`sidecarIndex`). */
export type SidecarIndex = (dir: string) => Promise<Map<string, string>>;

/** A `SidecarIndex` that reads each directory once, the first time it is asked for. */
export function sidecarIndex(): SidecarIndex {
  return perDir(async (dir) => sidecarsIn(dir, await listOf(dir)));
}

/** The names in `dir`; none when it cannot be read. */
const listOf = (dir: string) =>
  readdir(dir).then(
    (all) => new Set(all),
    () => new Set<string>(),
  );

/** `read`, run once per directory (the first call's promise is kept for the others). */
function perDir<T>(read: (dir: string) => Promise<T>): (dir: string) => Promise<T> {
  const byDir = new Map<string, Promise<T>>();
  return (dir) => {
    const value = byDir.get(dir) ?? read(dir);
    byDir.set(dir, value);
    return value;
  };
}

/** An API key that exists while its token is lost: the API never shows a token again. */
export interface LostToken {
  address: string;
  /** The key's id. */
  id: string;
  /** The token file as configured (relative to the config directory when it was written so). */
  file: string;
}

/**
 * What is said of a lost token, in the CLI's warning and the watch log: two sentences, the second
 * the advice (never to rotate the key: the token may be kept elsewhere).
 */
export function describeLostToken(t: LostToken): [fact: string, advice: string] {
  return [
    `the token of ${t.address} (${t.id}) is not on this machine: its token file ${t.file} does not hold it, and the API shows a token only once.`,
    "If the token is kept elsewhere (an imported key), add token_kept_elsewhere: true to the key; see docs/plan.md > Lost tokens.",
  ];
}

/** What `settleTokens` is given besides the plan and the configuration. */
export interface SettleOptions {
  /** Keys whose create response, and so their token, was lost: address -> key id. */
  recovered?: ReadonlyMap<string, string>;
  /** The state's records before the run (where each key's token was delivered). */
  records?: Readonly<Record<string, StateRecord>>;
  /** The run's API: a sidecar of another API's key names no key of this one. */
  api?: StateApi;
  /** Apply: move each kept key's token found elsewhere into its token file, saying so here. */
  move?: (e: EngineEvent) => void;
}

/**
 * The token files of the API keys `plan` keeps (no-op or update) or renames (docs/plan.md > Token
 * files, > Lost tokens). A key's token follows the key: one its token file lacks is looked for by
 * sidecar (`tokenSource`) and, with `move`, moved into place (a whole token there that is not the
 * key's is set aside first). @returns the keys whose token is lost here: `recovered`, and kept keys
 * whose token is neither in their file nor found (`placeOf`).
 * @throws Error from the file system while moving
 */
export async function settleTokens(
  plan: Plan,
  desired: DesiredState,
  o: SettleOptions = {},
): Promise<LostToken[]> {
  const lost: LostToken[] = [];
  // Made at the first kept key: none in a plan of creates.
  let files: KeyTokenFiles | undefined;
  for (const c of plan.changes) {
    if (!returnsToken(c.kind)) continue;
    let id = o.recovered?.get(c.address);
    // Only a recovered key or a kept one can have lost its token (a create or replace writes a new one).
    if (id === undefined && !kept(c)) continue;
    files ??= await keyTokenFiles(desired);
    const r = files.resources.get(c.address);
    if (!r || (id === undefined && r.options.token_kept_elsewhere)) continue;
    if (id === undefined) {
      const to = tokenFilePath(configuredTokenFile(r), desired.configDir);
      const record = o.records?.[c.address];
      const delivered = record && record.id === c.id ? record.tokenDelivered?.to : undefined;
      const place = await placeOf(c, to, delivered, files, o.api);
      if (place === "lost") id = c.id as string;
      else if (place !== "here" && o.move) await moveInto(c, place.from, to, files, o.move);
    }
    // The shown path only for a lost token: it costs a path.relative, and there are thousands of keys.
    if (id !== undefined)
      lost.push({ address: c.address, id, file: shownTokenFile(configuredTokenFile(r), desired.configDir) });
  }
  return lost;
}

/** A key the plan keeps (no-op or update of a recorded object). */
const kept = (c: Plan["changes"][number]) =>
  (c.action === "no-op" || c.action === "update") && c.id !== undefined && c.id !== "";

/**
 * Where kept key `c.id`'s token is for this checkout: `here` (in its token file `to`, delivered to
 * the token command, or, delivered to a file, in another checkout: one that lacks the file, or holds
 * a token no sidecar names, is not told it lost it), `from` a file to move into `to`, or `lost`: its
 * sidecar says `to` received it and `to` no longer holds it, or, for a key whose record says nothing
 * of a delivery (imported, adopted through its marker), `to` holds no whole token or another key's.
 */
async function placeOf(
  c: Plan["changes"][number],
  to: string,
  delivered: TokenDelivery["to"] | undefined,
  files: KeyTokenFiles,
  api: StateApi | undefined,
): Promise<"here" | "lost" | { from: string }> {
  const id = c.id as string;
  if (delivered === "command") return "here";
  const exists = (await files.listed(to)) || (await files.listed(sidecarPath(to)));
  const sidecar = exists ? sidecarOf(to) : undefined;
  const own = namesKey(sidecar, id, api);
  const { token, owner } = exists ? tokenOwner(to, sidecar) : { token: undefined, owner: undefined };
  if (own && owner !== undefined) return "here";
  const from = (await tokenSource(c, to, files)) ?? (own ? await halfMoved(to, sidecar, files) : undefined);
  if (from !== undefined) return { from };
  if (own) return "lost";
  if (delivered === "file") return "here";
  return token === undefined || owner !== undefined ? "lost" : "here";
}

/**
 * A file of `to`'s directory that no sidecar describes and holds the token of `sidecar` (`to`'s, naming
 * the key): a token move killed between its two renames (the sidecar goes first, `moveTokenFile`).
 */
async function halfMoved(to: string, sidecar: TokenSidecar | undefined, files: KeyTokenFiles) {
  const dir = dirname(to);
  const names = await files.listing(dir);
  for (const name of names) {
    if (names.has(`${name}.json`) || name.endsWith(".json")) continue;
    const token = wholeToken(join(dir, name));
    if (token !== undefined && tokenDigest(token) === sidecar?.digest) return join(dir, name);
  }
  return undefined;
}

/** Moves key `c`'s token file from `from` to `to`, clearing `to` first (`clearFor`). */
async function moveInto(
  c: Plan["changes"][number],
  from: string,
  to: string,
  files: KeyTokenFiles,
  emit: (e: EngineEvent) => void,
): Promise<void> {
  const holders = await files.holders(dirname(to));
  const aside = existsSync(to) ? await clearFor(to, c.address) : undefined;
  if (aside) {
    // The key whose token was there finds it where it went (it may be kept too, later in the plan).
    if (aside.owner !== undefined) holders.set(aside.owner, aside.path);
    emit({
      type: "token_set_aside",
      address: c.address,
      path: aside.path,
      holder: aside.holder,
      reason: "occupied",
    });
  }
  await moveTokenFile(from, to);
  holders.set(c.id as string, to);
  emit({ type: "token_moved", address: c.address, from, path: to });
}

/** What `settleTokens` reads of a configuration's token files, once per run. */
interface KeyTokenFiles {
  configDir: string;
  resources: Map<string, DesiredResource>;
  /** True when `path` exists: one listing per directory (keys share one), not a check per key. */
  listed: (path: string) => Promise<boolean>;
  /** The names in `dir` (read once per run). */
  listing: (dir: string) => Promise<Set<string>>;
  /**
   * The token files of directory `dir` and of its `removed/` by the key id their sidecar (for a
   * set-aside file, its name) gives: read once per directory, the first time a key's token is looked for.
   */
  holders: (dir: string) => Promise<Map<string, string>>;
}

async function keyTokenFiles(desired: DesiredState): Promise<KeyTokenFiles> {
  const listing = perDir(listOf);
  return {
    configDir: desired.configDir,
    resources: new Map(desired.resources.map((r) => [r.address, r])),
    listed: async (path) => (await listing(dirname(path))).has(basename(path)),
    listing,
    holders: perDir((dir) => holdersIn(dir, listing)),
  };
}

/** See `KeyTokenFiles.holders`. */
async function holdersIn(dir: string, listing: (dir: string) => Promise<Set<string>>) {
  const byId = new Map<string, string>();
  const removed = join(dir, "removed");
  for (const name of await listing(removed)) {
    const m = /\.([^.]+)\.token$/.exec(name);
    if (m) byId.set(m[1] as string, join(removed, name));
  }
  for (const [id, path] of sidecarsIn(dir, await listing(dir))) byId.set(id, path);
  return byId;
}

/** The files of `dir` (`names`: its listing) holding the token their sidecar names, by key id. */
function sidecarsIn(dir: string, names: ReadonlySet<string>): Map<string, string> {
  const byId = new Map<string, string>();
  for (const name of names) {
    const owner = names.has(`${name}.json`) ? tokenOwner(join(dir, name)).owner : undefined;
    if (owner !== undefined) byId.set(owner.key_id, join(dir, name));
  }
  return byId;
}

/**
 * Where key change `c`'s token is when its token file `to` lacks it: the old address's default file of
 * a `moved:` rename unless another key's sidecar names it (a file from before sidecars moves too);
 * else a file of `to`'s directory, or one set aside in its `removed/`, that holds the key's token (a
 * state put back after `tgw state mv`, a key managed again after `tgw state rm` or `removed:`).
 */
async function tokenSource(c: Plan["changes"][number], to: string, files: KeyTokenFiles) {
  const id = c.id as string;
  if (c.movedFrom) {
    const from = defaultTokenPath(c.movedFrom, files.configDir);
    const owner = from !== to && existsSync(from) ? tokenOwner(from).owner : null;
    if (owner === undefined || owner?.key_id === id) return from;
  }
  const found = (await files.holders(dirname(to))).get(id);
  return found !== undefined && found !== to ? found : undefined;
}
