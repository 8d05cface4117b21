/**
 * Events (docs/design.md section 5 > Events): every create, update and delete of every kind (modules
 * and referenced objects included) emits `<kind>_created|updated|deleted.v0`. The event goes to the
 * destinations of every subscription with a source of that type. Cloud targets cannot be reached from
 * a test machine, so a delivery is recorded in the store (`GET /debug/event_deliveries` reads them).
 *
 * Payload: `event_id`, `event_type`, `event_timestamp`, `account_id`, `object` (the resource as GET
 * returns it; for a delete, as it was), `principal` (`{id: <user or bot id of the caller>, source: "API"}`).
 */
import type { KindDescriptor } from "../../model/index.js";
import { nowTimestamp, randomAlphanumeric } from "../ids.js";
import type { RequestContext } from "./context.js";

/** What happened to the object. */
export type EventAction = "created" | "updated" | "deleted";

/** `api_key_created.v0`, `saml_updated.v0`... */
export function eventType(kind: KindDescriptor, action: EventAction): string {
  return `${kind.kind}_${action}.v0`;
}

/**
 * Emits one event: records a delivery per (subscription, destination) whose source names its type.
 * @param object the resource as GET returns it
 */
export function emitEvent(
  ctx: RequestContext,
  kind: KindDescriptor,
  action: EventAction,
  object: Record<string, unknown>,
): void {
  const type = eventType(kind, action);
  const subscriptions = ctx.store.subscriptionsFor(type);
  if (subscriptions.length === 0) return;
  const timestamp = nowTimestamp();
  const payload = {
    event_id: `ev_${randomAlphanumeric(27)}`,
    event_type: type,
    event_timestamp: timestamp,
    account_id: ctx.account.id,
    object,
    principal: { id: ctx.principal.ownerId, source: "API" },
  };
  ctx.store.transaction(() => {
    for (const sub of subscriptions) {
      for (const destination of (sub.body.destination_ids as string[] | undefined) ?? []) {
        ctx.store.addDelivery({
          event_id: payload.event_id,
          event_type: type,
          subscription_id: sub.id,
          destination_id: destination,
          delivered_at: timestamp,
          payload,
        });
      }
    }
  });
}
