/**
 * The reads of a `tgw plan`'s refresh against a remote API, remembered for the workspace's next plan,
 * which sends them while its configuration loads (src/client/prefetch.ts; docs/plan.md > Reads sent
 * early). An apply forgets them. The embedded server is on loopback: nothing to gain there.
 */
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { PrefetchingApi, readsFile } from "../client/prefetch.js";
import type { EngineEvent } from "../engine/index.js";
import { configDirOf } from "../state/location.js";
import {
  announceTarget,
  openTarget,
  openWorkspace,
  type Target,
  type Workspace,
  type WorkspaceOptions,
} from "./target.js";

/** A plan's workspace and target; `reads` when the target is remote. */
export interface PlanWorkspace {
  ws: Workspace;
  target: Target;
  reads?: RefreshReads;
}

/** The reads of a plan against a remote API, through `api`. */
export interface RefreshReads {
  api: PrefetchingApi;
  /** Records the refresh's GETs between its `refresh_started` and `refreshed` events. */
  onEvent(e: EngineEvent): void;
  /** Remembers the refresh's GETs for the next plan (call once the run succeeded). */
  save(): void;
}

/**
 * Opens the target of `tgw plan` and its workspace; against a remote API, the target first, sending
 * the reads remembered while the configuration loads (the target is announced after it loaded, as
 * before).
 * @throws UsageError from `openTarget`; ConfigError from `openWorkspace` (the target closed first).
 */
export async function openPlanWorkspace(
  opts: WorkspaceOptions,
  env: Record<string, string | undefined> = process.env,
): Promise<PlanWorkspace> {
  if (!env.TGW_API_URL?.trim()) {
    const ws = await openWorkspace(opts);
    return { ws, target: await openTarget({ configDir: ws.configDir, readOnly: true }) };
  }
  const target = await openTarget({
    configDir: configDirOf(opts.file?.[0]),
    readOnly: true,
    announce: "later",
  });
  const file = readsFile(target.identity.url, target.identity.key, workspaceText(opts), env);
  const reads = refreshReads(target.api, file);
  reads.api.prefetch(file);
  let ws: Workspace;
  try {
    ws = await openWorkspace(opts);
  } catch (err) {
    reads.api.stop();
    await target.close();
    throw err;
  }
  announceTarget(target);
  return { ws, target, reads };
}

/**
 * Forgets the reads remembered for the workspace `opts` against `target`: a run that may change the
 * objects or the state (an apply) leaves the next plan reading other things (lists it cleared, pages
 * moved by creates), so that plan reads on its own and remembers its reads for the ones after it.
 */
export function forgetReads(
  target: Target,
  opts: WorkspaceOptions,
  env: Record<string, string | undefined> = process.env,
): void {
  if (target.kind !== "remote") return;
  try {
    rmSync(readsFile(target.identity.url, target.identity.key, workspaceText(opts), env), { force: true });
  } catch {
    // A cache that cannot be written: the next plan sends reads not needed, as after any edit.
  }
}

/** The reads of a plan through `client`, remembered in `file`. */
function refreshReads(client: Target["api"], file: string): RefreshReads {
  const api = new PrefetchingApi(client);
  const onEvent = (e: EngineEvent) => {
    if (e.type === "refresh_started") api.startRecording();
    else if (e.type === "refreshed") {
      api.stopRecording();
      api.stop();
    }
  };
  return { api, onEvent, save: () => api.save(file) };
}

/** What names a workspace for its reads: the configuration and state given, from this directory. */
function workspaceText(opts: WorkspaceOptions): string {
  const files = (opts.file ?? []).map((f) => resolve(f));
  return JSON.stringify({ files: files.length > 0 ? files : [process.cwd()], state: opts.state ?? null });
}
