/**
 * Import entries (docs/configuration.md > import): the configuration's `import:` entries
 * (`{to: api_keys.ci, id: ak_123}`) adopt existing objects in the plan, as Terraform's `import`
 * blocks do. Like `moved:` entries (./moves.ts) they rewrite the planner's inputs, so the planner
 * itself knows nothing of imports: the object `id` is read as recorded for `to`, with the fingerprint
 * of its live values (so the configuration's differences show as updates, not drift). The plan then
 * writes this stack's ownership marker with the first PATCH (none with `ownership: state-only`), and
 * apply records it. An entry whose `to` the state already records with that id, or whose object
 * already carries the marker of `to`, does nothing, so entries may stay after the import was applied.
 */
import { collections, type KindDescriptor } from "../model/index.js";
import type { StateSnapshot } from "../state/store.js";
import { ImportError } from "./errors.js";
import { valuesFingerprint } from "./fingerprint.js";
import type { LiveState } from "./live.js";
import { liveValues } from "./normalize.js";

/** One `import:` entry. */
export interface Import {
  to: string;
  id: string;
}

/**
 * The state with a record for each import that applies (a new object; the input is not changed), and
 * those imports.
 * @throws ImportError when `to` already manages another object, the object does not exist (or is of
 *   another kind), or it is managed already: recorded at another address, or carrying another
 *   address's or stack's marker.
 */
export function applyImports(
  stack: string,
  state: StateSnapshot,
  live: LiveState,
  imports: readonly Import[],
): { state: StateSnapshot; applied: Import[] } {
  if (imports.length === 0) return { state, applied: [] };
  const resources = { ...state.resources };
  const applied: Import[] = [];
  for (const { to, id } of imports) {
    const fail = (why: string): never => {
      throw new ImportError(`import of ${id} as ${to}: ${why}. Nothing was changed.`);
    };
    const recorded = resources[to];
    if (recorded?.id === id) continue;
    if (recorded) fail(`${to} already manages ${recorded.id}; remove the entry, or tgw state rm ${to} first`);
    const kind = collections().get(to.slice(0, to.indexOf("."))) as KindDescriptor;
    const obj = live.objects.get(id);
    if (obj === undefined || obj.kind !== kind.kind) return fail(`there is no ${kind.title} with id ${id}`);
    const { marker } = obj;
    if (marker?.stack === stack && marker.address === to) continue;
    if (marker) {
      fail(
        marker.stack === stack
          ? `it is already managed as ${marker.address} (a moved: entry renames it)`
          : `it carries the ownership marker of stack "${marker.stack}" (as ${marker.address})`,
      );
    }
    const other = Object.values(resources).find((r) => r.id === id);
    if (other) fail(`it is already managed as ${other.address}`);
    resources[to] = {
      address: to,
      kind: kind.kind,
      id,
      fingerprint: valuesFingerprint(kind, liveValues(kind, obj.raw)),
      appliedAt: new Date(0).toISOString(),
    };
    applied.push({ to, id });
  }
  return { state: { ...state, resources }, applied };
}
