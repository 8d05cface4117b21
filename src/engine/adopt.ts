/**
 * Adopt (`tgw import ADDRESS ID`): take one existing live object under management (docs/design.md
 * section 3.2). The address must be in the configuration. The object gets this stack's ownership
 * marker (one PATCH of its metadata, the user's part kept as it is) and a state record; the next plan
 * then shows how it differs from the configuration. A module is imported by its address alone (its
 * identity is its path): the state records that tgw manages it, so removing it from the configuration
 * deletes it.
 */

import { type Api, ApiError } from "../client/index.js";
import type { DesiredState } from "../model/desired.js";
import { decodeMetadata, encodeMetadata, getKind, type KindDescriptor, kindOfId } from "../model/index.js";
import type { StateRecord, StateSnapshot, StateStore } from "../state/store.js";
import { objectPath } from "./apply.js";
import { ImportError } from "./errors.js";
import { valuesFingerprint } from "./fingerprint.js";
import { liveMetadataOf } from "./live.js";
import { liveValues } from "./normalize.js";
import { modulePath } from "./ownership.js";

/** Inputs of `importResource`. */
export interface ImportInput {
  desired: DesiredState;
  api: Api;
  store: StateStore;
  address: string;
  /** The object's id; for a module, optional (it must equal the module's path when given). */
  id?: string;
  lockTimeoutMs?: number;
  lockHolder?: string;
}

/** What an import did. */
export interface ImportResult {
  record: StateRecord;
  /** True when the marker was written (false: already there, or `ownership: state-only`, or a module). */
  markerWritten: boolean;
}

/**
 * Adopts the object `id` as `address`.
 * @throws ImportError when the address is not configured, the id is of another kind or does not
 *   exist, or the object already belongs to another address or stack; the state store's errors.
 */
export async function importResource(input: ImportInput): Promise<ImportResult> {
  const { desired, api, store, address } = input;
  const { kind, id } = importTarget(input);
  const unlock = await store.lock({
    timeoutMs: input.lockTimeoutMs ?? 0,
    holder: input.lockHolder ?? `tgw import, pid ${process.pid}`,
  });
  try {
    const state = await store.read();
    const existing = state.resources[address];
    let raw = await readObject(api, kind, id);
    if (existing && existing.id !== id) {
      throw new ImportError(
        `${address} already manages ${existing.id}; run tgw state rm ${address} first to adopt ${id} instead`,
      );
    }
    const other = Object.values(state.resources).find((r) => r.id === id && r.address !== address);
    if (other) throw new ImportError(`${id} is already managed as ${other.address}`);

    let markerWritten = false;
    if (kind.metadataField && desired.ownership === "marker") {
      ({ raw, markerWritten } = await writeMarker(api, desired, { kind, id, address, raw, state }));
    }
    // The fingerprint of what is live: the next plan shows the configuration's differences as updates, not drift.
    const record: StateRecord = {
      address,
      kind: kind.kind,
      id,
      fingerprint: valuesFingerprint(kind, liveValues(kind, raw)),
      appliedAt: new Date().toISOString(),
    };
    await store.write({ ...state, resources: { ...state.resources, [address]: record } });
    return { record, markerWritten };
  } finally {
    await unlock();
  }
}

/**
 * The kind and id to adopt as `input.address`: a module's id is its path.
 * @throws ImportError when the address is not configured, the id is missing, or of another kind.
 */
function importTarget(input: ImportInput): { kind: KindDescriptor; id: string } {
  const { address } = input;
  const resource = input.desired.resources.find((r) => r.address === address);
  if (!resource) {
    throw new ImportError(`${address} is not in the configuration: add it there first, then import it`);
  }
  const kind = getKind(resource.kind);
  const id = kind.module ? modulePath(resource) : input.id;
  if (kind.module && input.id !== undefined && input.id !== id) {
    throw new ImportError(`${address} is the module at ${id}; its id is its path (omit ID or give ${id})`);
  }
  if (id === undefined)
    throw new ImportError(`tgw import ${address} needs the id of the ${kind.title} to adopt`);
  if (!kind.module) {
    const ofId = kindOfId(id);
    if (ofId?.kind !== kind.kind) {
      throw new ImportError(
        `${id} is not the id of a ${kind.title} (ids of ${address} start with ${kind.idPrefix})${ofId ? `: it is a ${ofId.title}` : ""}`,
      );
    }
  }
  return { kind, id };
}

/**
 * The live object (or module) `id`.
 * @throws ImportError when it does not exist (404); the API's other errors.
 */
async function readObject(api: Api, kind: KindDescriptor, id: string): Promise<Record<string, unknown>> {
  try {
    return await api.get<Record<string, unknown>>(kind.module ? id : objectPath(kind, id));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new ImportError(
        kind.module ? `the module ${id} is not set` : `there is no ${kind.title} with id ${id}`,
      );
    }
    throw err;
  }
}

/**
 * Writes the ownership marker of `address` on the object (keeping its user metadata) unless it is
 * already there; returns the object (as patched when the marker was written).
 * @throws ImportError when it carries the marker of another stack or address, or another object
 *   already carries this address's marker.
 */
async function writeMarker(
  api: Api,
  desired: DesiredState,
  target: {
    kind: KindDescriptor;
    id: string;
    address: string;
    raw: Record<string, unknown>;
    state: StateSnapshot;
  },
): Promise<{ raw: Record<string, unknown>; markerWritten: boolean }> {
  const { kind, id, address, raw, state } = target;
  const { marker, user } = liveMetadataOf(kind, raw) ?? decodeMetadata("");
  if (marker && marker.stack !== desired.stack) {
    throw new ImportError(
      `${id} belongs to stack "${marker.stack}" (as ${marker.address}); it cannot join "${desired.stack}" too`,
    );
  }
  if (marker && marker.address !== address) {
    throw new ImportError(`${id} is already managed as ${marker.address} in this stack`);
  }
  if (marker) return { raw, markerWritten: false };
  const listKey = kind.listKey as string;
  // An object carrying the address's marker may be one this state records at another address, its
  // marker no newer than the state: a `tgw state mv` not applied yet. Importing now would put a second
  // marker of the address beside it, which an older copy of the state could not tell apart: apply first.
  const recordedAt = new Map(
    Object.values(state.resources)
      .filter((r) => r.address !== address)
      .map((r) => [r.id, r.address]),
  );
  for await (const item of api.list<Record<string, unknown>>(kind.path, listKey, { limit: 100 })) {
    const m = liveMetadataOf(kind, item)?.marker;
    if (m?.stack !== desired.stack || m.address !== address || item.id === id) continue;
    const movedTo = recordedAt.get(String(item.id));
    if (movedTo !== undefined && m.lineage === state.lineage && (m.serial ?? 0) <= state.serial) {
      throw new ImportError(
        `${String(item.id)} still carries the marker of ${address}, but this state records it as ${movedTo} (a tgw state mv not applied yet): apply first, which rewrites its marker, then import`,
      );
    }
    throw new ImportError(
      `${address} is already ${String(item.id)} (it carries the marker); delete one of them first`,
    );
  }
  const patched = await api.patch<Record<string, unknown>>(objectPath(kind, id), {
    [kind.metadataField as string]: encodeMetadata(user === "" ? undefined : user, {
      stack: desired.stack,
      address,
      lineage: state.lineage,
      serial: state.serial + 1,
    }),
  });
  return { raw: patched, markerWritten: true };
}
