/**
 * Builders of engine inputs for the pure tests (plan, diff, ownership, safety): desired resources
 * written as the config layer produces them, live objects as the reference server returns them, and
 * state snapshots.
 */

import { emptyLiveState, type LiveState, liveObject } from "../../src/engine/live.js";
import { buildRecord } from "../../src/engine/records.js";
import { resolveRefs } from "../../src/engine/refs.js";
import type { DesiredResource, DesiredState } from "../../src/model/desired.js";
import { collections, encodeMetadata, fillPath, getKind, moduleKinds } from "../../src/model/index.js";
import type { StateRecord, StateSnapshot } from "../../src/state/store.js";

export const STACK = "demo";

/** A desired resource; the kind comes from the address (`api_keys.ci`, `edges.https.E.routes.R.saml`). */
export function res(
  address: string,
  fields: Record<string, unknown> = {},
  extra: Partial<Pick<DesiredResource, "options" | "dependsOn">> = {},
): DesiredResource {
  const parts = address.split(".");
  let kind: string;
  let pathParams: Record<string, string> | undefined;
  if (parts[0] === "edges") {
    const key = parts[parts.length - 1] as string;
    const parent = parts[3] === "routes" ? "https_edge_route" : `${parts[1]}_edge`;
    const k = moduleKinds().find((m) => m.module?.parent === parent && m.module.configKey === key);
    if (!k) throw new Error(`no module at ${address}`);
    kind = k.kind;
    pathParams = {
      edge_id: parts[2] as string,
      ...(parts[3] === "routes" ? { route_id: parts[4] as string } : {}),
    };
  } else {
    const k = collections().get(parts[0] as string);
    if (!k) throw new Error(`no collection ${parts[0]}`);
    kind = k.kind;
  }
  const deps = new Set<string>(extra.dependsOn ?? []);
  const walk = (v: unknown) => {
    if (v && typeof v === "object" && "$ref" in v) deps.add((v as { $ref: string }).$ref);
    else if (Array.isArray(v)) v.forEach(walk);
  };
  Object.values(fields).forEach(walk);
  return {
    address,
    kind,
    fields,
    options: { prevent_destroy: false, ...extra.options },
    ...(pathParams ? { pathParams } : {}),
    dependsOn: [...deps].sort(),
    source: { file: "tgw.yaml", line: 1, col: 1 },
  };
}

/** A desired state of the test stack. */
export function desired(
  resources: DesiredResource[],
  ownership: "marker" | "state-only" = "marker",
  configDir = "/tmp/tgw-test",
): DesiredState {
  return {
    stack: STACK,
    ownership,
    resources: [...resources].sort((a, b) => (a.address < b.address ? -1 : 1)),
    files: ["tgw.yaml"],
    configDir,
  };
}

/** The metadata string tgw sends for `address` of the test stack. */
export function marked(address: string, user?: Record<string, unknown> | string): string {
  return encodeMetadata(user, { stack: STACK, address });
}

/** A live state with every collection kind listed and the given objects (`{kind, id, ...response}`). */
export function live(
  objects: { kind: string; id: string; [k: string]: unknown }[] = [],
  modules: { kind: string; path: string; [k: string]: unknown }[] = [],
  readModules: string[] = [],
): LiveState {
  const l = emptyLiveState();
  for (const k of collections().values()) l.listedKinds.add(k.kind);
  for (const { kind, ...raw } of objects) l.objects.set(raw.id, liveObject(kind, raw.id, raw));
  for (const { kind, path, ...raw } of modules) {
    l.modules.set(path, liveObject(kind, path, raw));
    l.readModules.add(path);
  }
  for (const p of readModules) l.readModules.add(p);
  return l;
}

/** A state snapshot holding `records`. */
export function state(records: StateRecord[] = [], serial = records.length > 0 ? 1 : 0): StateSnapshot {
  return {
    version: 1,
    lineage: "lineage-1",
    serial,
    stack: STACK,
    resources: Object.fromEntries(records.map((r) => [r.address, r])),
  };
}

/** The record apply would write for `resource` applied as `id` (refs resolved through `ids`). */
export function recordOf(
  resource: DesiredResource,
  id: string,
  ids: Record<string, string> = {},
): StateRecord {
  return buildRecord(
    getKind(resource.kind),
    resource,
    id,
    resolveRefs(resource.fields, (a) => ids[a]),
    new Date(0),
  );
}

/** The API path of a module resource. */
export function pathOf(resource: DesiredResource): string {
  return fillPath(getKind(resource.kind).path, resource.pathParams ?? {});
}
