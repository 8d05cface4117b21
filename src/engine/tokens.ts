/**
 * API key tokens (docs/design.md section 3.4): the API returns a key's token once, in the create
 * response. Apply writes it to a file of mode 0600 (default `.tgw/secrets/<name>.token` under the
 * config directory, or the resource's `token_file` option) and nowhere else: never to the state,
 * the plan or logs.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { access, chmod, type FileHandle, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DesiredResource, DesiredState } from "../model/desired.js";
import { defaultTokenFile, returnsToken, secretsDir } from "../model/token-file.js";
import { processIsAlive } from "../state/lock-info.js";
import type { StateRecord } from "../state/store.js";
import type { Plan } from "./action.js";
import { TokenWriter } from "./token-writer.js";

/**
 * The token file of an API key resource as configured: `token_file` (the config layer always sets
 * it), else `.tgw/secrets/<name>.token` as the config layer's default (`api_keys.ci` -> `ci.token`).
 */
export function configuredTokenFile(resource: DesiredResource): string {
  const name = resource.address.slice(resource.address.indexOf(".") + 1);
  return resource.options.token_file ?? defaultTokenFile(".", name);
}

/** Absolute path of a configured token file (relative paths are relative to the config directory). */
export function tokenFilePath(configured: string, configDir: string): string {
  return isAbsolute(configured) ? configured : resolve(configDir, configured);
}

/**
 * A token file as plans show it (`base`: the config directory) and apply's progress lines (the working
 * directory): relative to `base` when inside it, else as given.
 */
export function shownTokenFile(configured: string, base: string): string {
  if (!isAbsolute(configured)) return configured;
  // One path.relative per directory, not per key: keys share their secrets directory.
  const dir = dirname(configured);
  const key = `${base}\0${dir}`;
  let shownDir = shownDirs.get(key);
  if (shownDir === undefined) {
    const rel = relative(base, dir);
    shownDir = rel.startsWith("..") || isAbsolute(rel) ? dir : rel;
    shownDirs.set(key, shownDir);
  }
  // shownDir is normalized (path.relative) and a base name has no separator: no path.join needed.
  return shownDir === dir
    ? configured
    : shownDir === ""
      ? basename(configured)
      : `${shownDir}${sep}${basename(configured)}`;
}

/** `shownTokenFile`'s directories, by base directory and token directory. */
const shownDirs = new Map<string, string>();

/**
 * Writes `token` (and a newline) to `path` with mode 0600 (less if the umask says so), creating missing
 * directories with mode 0700; resolves once the token is in `path` (docs/plan.md, "Token files"):
 * - no file at `path` (a new key): the file is created there exclusively (`O_EXCL`, which a symlink
 *   fails too) and the token written in one call; if that write fails the file is removed. Cheaper than
 *   a temporary file and a rename (bench/README.md); a kill between the open and the write
 *   leaves an empty file, which `lostTokens` reports as a lost token;
 * - a file at `path` (a rotated key): replaced atomically (`<path>.<pid>.tmp`, then a rename), so the
 *   old token stays whole until the new one is.
 * The first
 * `IN_THREAD_TOKEN_FILES` files of a process are written in this thread; later ones by a worker thread,
 * in batches (./token-writer.ts: an apply of thousands of keys), identically; with a `guard`, in this
 * thread, asking it right before the file is created or replaced (a state lock still held: a write
 * queued for a worker could land after a freeze in which the lock was taken over).
 * @throws TokenFileGuardError when `guard` answers false (nothing written at `path`); Error from the file system (permission denied, read-only disk...), with its `code`.
 */
export function writeTokenFile(path: string, token: string, guard?: () => Promise<boolean>): Promise<void> {
  if (guard || tokenFilesStarted++ < IN_THREAD_TOKEN_FILES) return writeTokenFileInThread(path, token, guard);
  tokenWriter ??= new TokenWriter(writeTokenFileInThread);
  return tokenWriter.write(path, token);
}

/**
 * Token files a process writes in its own thread before handing them to a worker: starting the worker
 * costs about as much as this many files written through the thread pool.
 */
export const IN_THREAD_TOKEN_FILES = 16;

let tokenFilesStarted = 0;
let tokenWriter: TokenWriter | undefined;

/**
 * `writeTokenFile` in this thread, through `fs/promises`: the first files of a process, and the worker's
 * fallback. Exported for tests.
 */
export async function writeTokenFileInThread(
  path: string,
  token: string,
  guard?: () => Promise<boolean>,
): Promise<void> {
  const dir = dirname(path);
  // One mkdir per directory and process, not one per token (an apply writes hundreds into one).
  if (!madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    madeDirs.add(dir);
  }
  const text = `${token}\n`;
  if (guard && !(await guard())) throw new TokenFileGuardError(path);
  // A new token file: created in place. `wx` fails on any existing name, a symlink included.
  const created = await openOrMakeDir(path, "wx", dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "EEXIST") return undefined;
    throw err;
  });
  if (created) {
    try {
      const { bytesWritten } = await created.write(text, null, "utf8");
      if (bytesWritten !== Buffer.byteLength(text)) throw new Error("the token was written in part");
    } catch (err) {
      // Never leave an empty or partial token file behind (this process made it).
      await created.close().catch(() => {});
      await rm(path, { force: true });
      throw err;
    }
    await created.close();
    return;
  }
  // A file is there (a rotated key): replaced atomically, never seen half written.
  const tmp = `${path}.${process.pid}.tmp`;
  const file = await openOrMakeDir(tmp, "w", dir);
  try {
    // No chmod: the umask can only take bits away from 0600, so the file is never readable by others.
    await file.write(text, null, "utf8");
  } finally {
    await file.close();
  }
  if (guard && !(await guard())) {
    await rm(tmp, { force: true });
    throw new TokenFileGuardError(path);
  }
  await rename(tmp, path);
}

/** `writeTokenFile`'s guard said no: nothing was written at `path`. */
export class TokenFileGuardError extends Error {
  constructor(readonly path: string) {
    super(`${path} was not written: the state lock was lost`);
  }
}

/** Opens `path` with mode 0600, making `dir` again when it was removed since it was made. */
function openOrMakeDir(path: string, flags: string, dir: string): Promise<FileHandle> {
  return open(path, flags, 0o600).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return open(path, flags, 0o600);
  });
}

/** Directories `writeTokenFileInThread` made (or found) in this process. */
const madeDirs = new Set<string>();

/** A whole token file: the token, then the newline written after it. */
const WHOLE_TOKEN = /^\S+\n$/;

/** SHA-256 (hex) of a token, as the state records it (TokenDelivery.digest). */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
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

/**
 * Finishes the token writes a killed apply left half done: `<token file>.<pid>.tmp` of a process that
 * no longer runs. A whole token (it ends with the newline written after it) whose token file does not
 * exist is moved into place, so it is not lost; any other leftover is removed.
 * @returns the addresses whose token was saved this way.
 */
export async function recoverTokenFiles(desired: DesiredState): Promise<string[]> {
  const saved: string[] = [];
  // The token files by directory, each directory listed once for its temporary files (keys share
  // one secrets directory, which usually has none: then no key of it is looked at again).
  const byDir = new Map<string, { address: string; file: string }[]>();
  for (const r of desired.resources) {
    if (!returnsToken(r.kind)) continue;
    const file = tokenFilePath(configuredTokenFile(r), desired.configDir);
    const dir = dirname(file);
    const keys = byDir.get(dir);
    if (keys) keys.push({ address: r.address, file });
    else byDir.set(dir, [{ address: r.address, file }]);
  }
  for (const [dir, keys] of byDir) {
    const names = await readdir(dir).then(
      (all) => all.filter((n) => n.endsWith(".tmp")),
      () => [],
    );
    if (names.length === 0) continue;
    for (const { address, file } of keys) {
      const prefix = `${basename(file)}.`;
      for (const name of names) {
        const m = /^(\d+)\.tmp$/.exec(name.slice(prefix.length));
        if (!name.startsWith(prefix) || !m || processIsAlive(Number(m[1]))) continue;
        const tmp = join(dir, name);
        const whole = WHOLE_TOKEN.test(await readFile(tmp, "utf8").catch(() => ""));
        if (whole && !(await exists(file))) {
          await chmod(tmp, 0o600);
          await rename(tmp, file);
          saved.push(address);
        } else await rm(tmp, { force: true });
      }
    }
  }
  return saved;
}

/**
 * The API keys `plan` keeps (no-op or update) whose token file does not exist (or, for a key adopted
 * through its marker, does not hold a whole token), plus `recovered`
 * (keys whose create response, and so their token, was lost): their tokens cannot be shown again.
 * `ids` gives the id of a key created by the apply.
 */
export async function lostTokens(
  plan: Plan,
  desired: DesiredState,
  recovered: ReadonlyMap<string, string> = new Map(),
  records: Readonly<Record<string, StateRecord>> = {},
  isLive?: (token: string) => Promise<boolean>,
): Promise<LostToken[]> {
  // Made at the first key that may have lost its token: none in a plan of creates.
  let resources: Map<string, DesiredResource> | undefined;
  let keptIds: Set<string | undefined> | undefined;
  const keptId = (id: string) => {
    keptIds ??= new Set(plan.changes.map((ch) => ch.id));
    return keptIds.has(id);
  };
  const lost: LostToken[] = [];
  let aside: Promise<Map<string, string>> | undefined;
  const restorable = () => {
    aside ??= setAside(desired.configDir);
    return aside;
  };
  // One listing per directory instead of a check per key (keys share one secrets directory); a
  // directory listed already is read without an await (thousands of keys per plan).
  const listings = new Map<string, Set<string>>();
  const list = async (dir: string) => {
    const names = await readdir(dir).then(
      (all) => new Set(all),
      () => new Set<string>(),
    );
    listings.set(dir, names);
    return names;
  };
  const listed = async (path: string) => {
    const dir = dirname(path);
    return (listings.get(dir) ?? (await list(dir))).has(basename(path));
  };
  for (const c of plan.changes) {
    if (!returnsToken(c.kind)) continue;
    let id = recovered.get(c.address);
    // Only a recovered key or a kept one can have lost its token (a create or replace writes a new one).
    const kept = (c.action === "no-op" || c.action === "update") && c.id !== undefined && c.id !== "";
    if (id === undefined && !kept) continue;
    resources ??= new Map(desired.resources.map((r) => [r.address, r]));
    const r = resources.get(c.address);
    if (!r || (id === undefined && deliveredElsewhere(r, records[c.address]))) continue;
    const configured = configuredTokenFile(r);
    if (
      id === undefined &&
      kept &&
      !(await hasToken(
        c,
        tokenFilePath(configured, desired.configDir),
        listed,
        records[c.address],
        isLive,
        keptId,
      )) &&
      !(
        c.movedFrom &&
        (await movableTokenFile(
          c.movedFrom,
          tokenFilePath(configured, desired.configDir),
          desired.configDir,
          isLive,
        ))
      ) &&
      !(await restorable()).has(c.id as string)
    )
      id = c.id;
    // The shown path only for a lost token: it costs a path.relative, and there are thousands of keys.
    if (id !== undefined)
      lost.push({ address: c.address, id, file: shownTokenFile(configured, desired.configDir) });
  }
  return lost;
}

/**
 * True when a kept key's token is not this machine's to hold: the key says it is kept elsewhere, or
 * the state records that its token went to the token command, or to a file on another machine (a CI
 * runner, another checkout): its missing file here is not a lost token.
 */
function deliveredElsewhere(r: DesiredResource, record: StateRecord | undefined): boolean {
  if (r.options.token_kept_elsewhere) return true;
  const delivered = record?.tokenDelivered;
  return delivered?.to === "command" || (delivered?.to === "file" && delivered.host !== hostname());
}

/**
 * True when the token file of a kept key holds its token. When the state recorded the token's digest
 * for this very key, the file must hold that token (not emptied, not another key's token). Otherwise
 * (an imported key, one adopted through its marker, a record from before digests) it must hold a whole
 * token (a kill between its creation and the write leaves it empty), not a recorded other object's
 * (for a record without a digest: of an object the plan `kept`, whose file it is), that `isLive`
 * (when given) says is a live key's: the file may be a deleted key's, left there.
 */
async function hasToken(
  c: Plan["changes"][number],
  file: string,
  listed: (path: string) => Promise<boolean>,
  record: StateRecord | undefined,
  isLive: ((token: string) => Promise<boolean>) | undefined,
  kept: (id: string) => boolean,
): Promise<boolean> {
  if (!(await listed(file))) return false;
  const digest = record?.tokenDelivered?.digest;
  // A record of another object: the key at this address was made again, or is another object now.
  const ofOther = record !== undefined && record.id !== c.id;
  // Without a digest, the file of another object the plan keeps is that object's: a token file goes
  // with its record (tgw state mv). One of an object gone may since have been rewritten.
  if (ofOther && digest === undefined && kept(record.id)) return false;
  const text = readTokenFile(file);
  if (!WHOLE_TOKEN.test(text)) return false;
  const token = text.slice(0, -1);
  // The record of this very key, with its token's digest: the file must hold exactly that token.
  if (!ofOther && digest !== undefined) return tokenDigest(token) === digest;
  if (ofOther && tokenDigest(token) === digest) return false;
  // No digest of this key's token (imported, adopted through its marker, recorded before digests),
  // or the file is not the other object's: it may still be a deleted key's. The API tells.
  return isLive === undefined || (await isLive(token));
}

/**
 * A token file's text, "" when it cannot be read. Read synchronously: a plan reads one per key, and
 * an await per tiny file costs far more than its read (bench/README.md, 2026-11-27).
 */
function readTokenFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The default token file of an address that is no longer in the configuration (a `moved:` `from`). */
function movedTokenFile(from: string, configDir: string): string {
  return defaultTokenFile(resolve(configDir), from.slice(from.indexOf(".") + 1));
}

/**
 * Moves the default token file of an API key that a `removed:` entry stops managing aside, to
 * `.tgw/secrets/removed/<name>.<id>.token` (mode 0600 kept, directory 0700): the key lives on, so its
 * token is kept, but a key adopted or made at the address later must not pass for its owner.
 * @returns the new path, or undefined when there was no such file
 * @throws Error from the file system (EACCES...)
 */
export async function setTokenAside(
  address: string,
  id: string,
  configDir: string,
): Promise<string | undefined> {
  const file = movedTokenFile(address, configDir);
  if (!(await exists(file))) return undefined;
  return moveAside(file, address, id);
}

/**
 * Sets aside, as `setTokenAside` does, the token file of an API key whose record `tgw state rm` drops,
 * when it holds the token the record's digest names: a key adopted at the address later must not pass
 * for its owner, and the key's own token comes back when it is managed again (`moveTokenFiles`).
 * @returns the new path, or undefined when the file does not hold that token (or the record has no digest)
 * @throws Error from the file system (EACCES...)
 */
export async function setAsideForgottenToken(file: string, record: StateRecord): Promise<string | undefined> {
  const digest = record.tokenDelivered?.digest;
  const text = readTokenFile(file);
  if (digest === undefined || !WHOLE_TOKEN.test(text) || tokenDigest(text.slice(0, -1)) !== digest)
    return undefined;
  return moveAside(file, record.address, record.id);
}

/** Moves a token `file` to `<its dir>/removed/<name>.<id>.token` (directory 0700). @returns the new path */
async function moveAside(file: string, address: string, id: string): Promise<string> {
  const aside = await asidePath(file, address, id);
  await rename(file, aside);
  return aside;
}

/**
 * The set-aside path of the token of key `id` at `address` whose token file is `file`
 * (`<its dir>/removed/<name>.<id>.token`), its directory made (0700).
 */
export async function asidePath(file: string, address: string, id: string): Promise<string> {
  const dir = join(dirname(file), "removed");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${address.slice(address.indexOf(".") + 1)}.${id}.token`);
}

/**
 * The token files `setTokenAside` set aside (`.tgw/secrets/removed/<name>.<id>.token`), by key id: a
 * key managed again (re-adopted after `tgw state rm`, imported again after `removed:`) whose token
 * file does not exist gets its token back from there at the next apply. Empty when there are none.
 */
async function setAside(configDir: string): Promise<Map<string, string>> {
  const dir = join(secretsDir(resolve(configDir)), "removed");
  const names = await readdir(dir).catch(() => [] as string[]);
  const byId = new Map<string, string>();
  for (const name of names) {
    const m = /\.([^.]+)\.token$/.exec(name);
    if (m) byId.set(m[1] as string, join(dir, name));
  }
  return byId;
}

/**
 * Removes the default token file of a deleted API key that is no longer in the configuration, when it
 * holds that key's token (`digest`, as its record says): a dead token must not pass later for the
 * token of another key at the address (a new key, or one `tgw state mv` brings there).
 * @returns true when a file was removed.
 */
export async function removeDeletedKeysToken(
  address: string,
  digest: string,
  configDir: string,
): Promise<boolean> {
  const file = movedTokenFile(address, configDir);
  const text = readTokenFile(file);
  if (!WHOLE_TOKEN.test(text) || tokenDigest(text.slice(0, -1)) !== digest) return false;
  await rm(file, { force: true });
  return true;
}

/**
 * The old default token file of a key renamed with `moved:` (from `from`), when apply moves it to the
 * key's token file `to`: it exists, and `to` does not, or holds no whole token, or one `isLive` says is
 * dead (a deleted key's, left there). Never over a token that may still work.
 */
async function movableTokenFile(
  from: string,
  to: string,
  configDir: string,
  isLive: ((token: string) => Promise<boolean>) | undefined,
): Promise<string | undefined> {
  const file = movedTokenFile(from, configDir);
  if (file === to || !(await exists(file))) return undefined;
  if (!(await exists(to))) return file;
  const text = readTokenFile(to);
  if (!WHOLE_TOKEN.test(text)) return file;
  return isLive !== undefined && !(await isLive(text.slice(0, -1))) ? file : undefined;
}

/**
 * Moves the token file of each renamed API key (`moved:`) from the old address's default file to the
 * new address's token file, unless that one may hold a working token (`movableTokenFile`): a rename
 * keeps the token. Puts back the token file set aside for a key managed again (`setAside`) when its
 * token file does not exist.
 * @returns the addresses whose token file was moved.
 */
export async function moveTokenFiles(
  plan: Plan,
  desired: DesiredState,
  isLive?: (token: string) => Promise<boolean>,
): Promise<string[]> {
  const moved: string[] = [];
  const aside = await setAside(desired.configDir);
  if (aside.size === 0 && !plan.changes.some((c) => c.movedFrom)) return moved;
  const resources = new Map(desired.resources.map((r) => [r.address, r]));
  for (const c of plan.changes) {
    const r = resources.get(c.address);
    if (!r || !returnsToken(c.kind)) continue;
    const to = tokenFilePath(configuredTokenFile(r), desired.configDir);
    const kept = (c.action === "no-op" || c.action === "update") && c.id !== undefined;
    const from =
      (c.movedFrom ? await movableTokenFile(c.movedFrom, to, desired.configDir, isLive) : undefined) ??
      (kept && aside.has(c.id as string) && !(await exists(to)) ? aside.get(c.id as string) : undefined);
    if (from === undefined) continue;
    await mkdir(dirname(to), { recursive: true, mode: 0o700 });
    await rename(from, to);
    moved.push(c.address);
  }
  return moved;
}
