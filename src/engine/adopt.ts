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
import { decodeMetadata, encodeMetadata, getKind, kindOfId } from "../model/index.js";
import type { StateRecord, StateStore } from "../state/store.js";
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
  const resource = desired.resources.find((r) => r.address === address);
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
  const unlock = await store.lock({
    timeoutMs: input.lockTimeoutMs ?? 0,
    holder: input.lockHolder ?? `tgw import, pid ${process.pid}`,
  });
  try {
    const state = await store.read();
    const existing = state.resources[address];
    let raw: Record<string, unknown>;
    try {
      raw = await api.get<Record<string, unknown>>(kind.module ? id : objectPath(kind, id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        throw new ImportError(
          kind.module ? `the module ${id} is not set` : `there is no ${kind.title} with id ${id}`,
        );
      }
      throw err;
    }
    if (existing && existing.id !== id) {
      throw new ImportError(
        `${address} already manages ${existing.id}; run tgw state rm ${address} first to adopt ${id} instead`,
      );
    }
    const other = Object.values(state.resources).find((r) => r.id === id && r.address !== address);
    if (other) throw new ImportError(`${id} is already managed as ${other.address}`);

    let markerWritten = false;
    if (kind.metadataField && desired.ownership === "marker") {
      const { marker, user } = liveMetadataOf(kind, raw) ?? decodeMetadata("");
      if (marker && marker.stack !== desired.stack) {
        throw new ImportError(
          `${id} belongs to stack "${marker.stack}" (as ${marker.address}); it cannot join "${desired.stack}" too`,
        );
      }
      if (marker && marker.address !== address) {
        throw new ImportError(`${id} is already managed as ${marker.address} in this stack`);
      }
      if (!marker) {
        const listKey = kind.listKey as string;
        for await (const item of api.list<Record<string, unknown>>(kind.path, listKey, { limit: 100 })) {
          const m = liveMetadataOf(kind, item)?.marker;
          if (m?.stack === desired.stack && m.address === address && item.id !== id) {
            throw new ImportError(
              `${address} is already ${String(item.id)} (it carries the marker); delete one of them first`,
            );
          }
        }
        raw = await api.patch<Record<string, unknown>>(objectPath(kind, id), {
          [kind.metadataField]: encodeMetadata(user === "" ? undefined : user, {
            stack: desired.stack,
            address,
            lineage: state.lineage,
            serial: state.serial + 1,
          }),
        });
        markerWritten = true;
      }
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
