/**
 * Configuration for live objects nobody manages (`tgw generate`, docs/configuration.md > import), as
 * octoDNS's dump and Terraform's `-generate-config-out` do: each unmanaged object of a collection (no
 * ownership marker of any stack, not recorded by this state) becomes a resource entry with its
 * request fields as the API shows them, and an `import:` entry adopting it at that address. Values
 * equal to a field's default are left out; write-only fields (the API never shows them) are named so
 * that the user sets them.
 */
import type { Api } from "../client/index.js";
import { canonicalJson, collections, type KindDescriptor } from "../model/index.js";
import type { StateSnapshot } from "../state/store.js";
import { liveObject } from "./live.js";
import { liveValues } from "./normalize.js";

/** One generated resource. */
export interface GeneratedResource {
  /** The collection, e.g. `api_keys`. */
  collection: string;
  /** Its name in the collection, unique there. */
  name: string;
  id: string;
  /** Request fields, defaults left out. */
  fields: Record<string, unknown>;
  /** Write-only fields the API does not show, which the configuration must set. */
  writeOnly: string[];
}

/**
 * Reads every collection (or those named) and returns the objects nobody manages, by collection then
 * id. `taken` holds the addresses the configuration already uses (names are chosen around them).
 * @throws the API's errors (ApiError, NetworkError)
 */
export async function generateResources(input: {
  api: Api;
  state: StateSnapshot;
  taken: ReadonlySet<string>;
  only?: readonly string[];
}): Promise<GeneratedResource[]> {
  const recorded = new Set(Object.values(input.state.resources).map((r) => r.id));
  const used = new Set(input.taken);
  const out: GeneratedResource[] = [];
  for (const [collection, kind] of [...collections()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (input.only && !input.only.includes(collection)) continue;
    const items = await input.api.listAll<Record<string, unknown>>(kind.path, kind.listKey as string);
    for (const raw of items.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))) {
      const id = String(raw.id);
      if (recorded.has(id) || liveObject(kind.kind, id, raw).marker) continue;
      const name = uniqueName(collection, nameOf(raw, id), used);
      out.push({ collection, name, id, fields: requestFields(kind, raw), writeOnly: writeOnlyFields(kind) });
    }
  }
  return out;
}

/** The live object's request fields, without the values the server would apply anyway. */
function requestFields(kind: KindDescriptor, raw: Record<string, unknown>): Record<string, unknown> {
  const values = liveValues(kind, raw);
  const fields: Record<string, unknown> = {};
  for (const f of kind.fields) {
    const v = values[f.name];
    if (f.writeOnly || v === undefined || v === null || (f.isMetadata && v === "")) continue;
    if (f.default !== undefined && canonicalJson(v) === canonicalJson(f.default)) continue;
    fields[f.name] = v;
  }
  return fields;
}

function writeOnlyFields(kind: KindDescriptor): string[] {
  return kind.fields.filter((f) => f.writeOnly && f.required).map((f) => f.name);
}

/** A name from the description (`Deploys from CI` -> `deploys-from-ci`), else from the id. */
function nameOf(raw: Record<string, unknown>, id: string): string {
  const text = typeof raw.description === "string" ? raw.description : "";
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, 40);
  return slug !== "" ? slug : id.toLowerCase().replace(/[^a-z0-9_-]/g, "-");
}

function uniqueName(collection: string, base: string, used: Set<string>): string {
  let name = base;
  for (let n = 2; used.has(`${collection}.${name}`); n++) name = `${base}-${n}`;
  used.add(`${collection}.${name}`);
  return name;
}
