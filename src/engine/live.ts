/**
 * Live state: what the refresh read from the API, as plain data the planner can use without I/O.
 * Collection objects are keyed by id (ids are unique across kinds thanks to their prefixes); modules by
 * their API path (their identity, docs/design.md section 3.3).
 */
import {
  canonicalJson,
  decodeMetadata,
  getKind,
  type KindDescriptor,
  markerIn,
  type OwnershipMarker,
} from "../model/index.js";
import { sha256 } from "./fingerprint.js";
import { liveMetadataObject, liveValues } from "./normalize.js";

/** One object read from the API. */
export interface LiveObject {
  kind: string;
  /** Server id; for a module, its API path. */
  id: string;
  /** The response body as returned. */
  raw: Record<string, unknown>;
  /** This object's ownership marker, when its metadata carries a well-formed one. */
  marker?: OwnershipMarker;
}

/** Everything one refresh read. */
export interface LiveState {
  /** Collection objects by id. */
  objects: Map<string, LiveObject>;
  /** Kinds that were listed completely: an id of such a kind that is not in `objects` does not exist. */
  listedKinds: Set<string>;
  /** Collection ids read one by one (GET): such an id that is not in `objects` does not exist. */
  readIds: Set<string>;
  /**
   * True when part of this read was kept from an earlier one (`tgw watch`'s file-change reads): its
   * lists may predate this stack's last creates, so they do not clear the state's unrecorded kinds.
   */
  kept?: boolean;
  /** Modules that exist, by path. */
  modules: Map<string, LiveObject>;
  /** Module paths that were read (present or 404). */
  readModules: Set<string>;
  /**
   * Parents (edges, routes) that do not exist, by API path: checked once per parent of a module whose
   * GET answered 404, so that "not set" and "no such edge or route" are told apart.
   */
  missingParents: Set<string>;
}

/** An empty live state (nothing listed, nothing read). */
export function emptyLiveState(): LiveState {
  return {
    objects: new Map(),
    listedKinds: new Set(),
    readIds: new Set(),
    modules: new Map(),
    readModules: new Set(),
    missingParents: new Set(),
  };
}

/**
 * The live metadata of a response body split into the ownership marker and the user's part
 * (`decodeMetadata`), read from the kind's marker-carrying field; undefined when the kind has none.
 */
export function liveMetadataOf(
  kind: KindDescriptor,
  raw: Record<string, unknown>,
): ReturnType<typeof decodeMetadata> | undefined {
  const text = kind.metadataField ? raw[kind.metadataField] : undefined;
  return typeof text === "string" ? decodeMetadata(text) : undefined;
}

/** Builds a `LiveObject` from a response body, decoding its ownership marker. */
export function liveObject(kind: string, id: string, raw: Record<string, unknown>): LiveObject {
  const field = getKind(kind).metadataField;
  const metadata = field ? liveMetadataObject(raw, field) : undefined;
  const marker = metadata ? markerIn(metadata) : undefined;
  return marker ? { kind, id, raw, marker } : { kind, id, raw };
}

/**
 * SHA-256 over every object read (kind, id, marker and comparable fields), sorted: equal when a
 * second refresh would give the planner the same input. Volatile response-only fields (a backend's
 * matching `tunnels`, timestamps) do not count.
 */
export function liveFingerprint(live: LiveState): string {
  const rows: string[] = [];
  for (const o of [...live.objects.values(), ...live.modules.values()]) {
    rows.push(canonicalJson([o.kind, o.id, o.marker ?? null, liveValues(getKind(o.kind), o.raw)]));
  }
  for (const path of live.readModules)
    if (!live.modules.has(path)) rows.push(canonicalJson(["absent", path]));
  return sha256(rows.sort().join("\n"));
}
