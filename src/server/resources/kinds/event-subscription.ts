/**
 * Event subscriptions (docs/api.md > Event subscription): each source comes back with its uri,
 * `<subscription uri>/sources/<type>`; `destinations` are Refs (from `destination_ids`, by the model's
 * `live` annotation).
 */
import { uriOfObject } from "../context.js";
import type { KindHooks } from "../hooks.js";

/** The rules of this file, as hooks of the generic builders. */
export const eventSubscriptionHooks: KindHooks = {
  present(obj, ctx) {
    const uri = uriOfObject(ctx, obj);
    const sources = (obj.body.sources as { type: string }[] | undefined) ?? [];
    return { sources: sources.map((s) => ({ type: s.type, uri: `${uri}/sources/${s.type}` })) };
  },
};
