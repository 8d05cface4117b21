/**
 * Tunnel group backends (docs/api.md > Tunnel group backend). `tunnels` is derived at read time: the
 * tunnels whose labels include every label of the backend (a backend without labels matches none).
 * The create response shows `[]`, as docs/api.md says of a new backend: tunnels attach afterwards.
 */
import { type RequestContext, refTo } from "../context.js";
import type { KindHooks } from "../hooks.js";

/** Ref objects of the tunnels matching `labels`, oldest first. */
export function matchingTunnels(labels: Record<string, string>, ctx: RequestContext) {
  const wanted = Object.entries(labels);
  if (wanted.length === 0) return [];
  return ctx.store
    .all("tunnel")
    .reverse()
    .filter((t) => {
      const have = (t.body.labels ?? {}) as Record<string, string>;
      return wanted.every(([k, v]) => have[k] === v);
    })
    .map((t) => refTo(ctx, t.id));
}

/** The rules of this file, as hooks of the generic builders. */
export const tunnelGroupBackendHooks: KindHooks = {
  create: (input) => ({ body: input, response: { tunnels: [] } }),
  present: (obj, ctx) => ({
    tunnels: matchingTunnels((obj.body.labels ?? {}) as Record<string, string>, ctx),
  }),
};
