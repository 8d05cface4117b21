/**
 * Debug endpoints for tests and for people trying the server, admin only, not part of the API: no
 * Service-Version needed, never subject to faults or the rate limit, not recorded.
 *
 * - `GET /debug/requests`: `{requests: [{method, path, status}]}`, every API request since start or
 *   the last reset, oldest first (status 0: dropped by fault injection).
 * - `DELETE /debug/requests`: resets that record (204).
 * - `GET /debug/event_deliveries`: `{event_deliveries: [{event_id, event_type, subscription_id,
 *   destination_id, delivered_at, payload}]}`, oldest first; optional filters `destination_id`,
 *   `event_type`.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { problems } from "../../errors.js";
import { accountOfRecord } from "../../plugins/request-log.js";

const config = { debug: true };

function adminOnly(request: FastifyRequest): void {
  if (!request.principal.admin) throw problems.adminOnly("use the debug endpoints");
}

export default async function debugRoutes(app: FastifyInstance): Promise<void> {
  app.get("/debug/requests", { config }, async (request) => {
    adminOnly(request);
    const account = request.principal.accountId;
    const mine = (r: (typeof app.recordedRequests)[number]) =>
      (accountOfRecord(r) ?? app.store.accountId) === account;
    return { requests: app.recordedRequests.filter(mine) };
  });
  app.delete("/debug/requests", { config }, async (request, reply) => {
    adminOnly(request);
    const account = request.principal.accountId;
    const others = app.recordedRequests.filter(
      (r) => (accountOfRecord(r) ?? app.store.accountId) !== account,
    );
    app.recordedRequests.length = 0;
    for (const r of others) app.recordedRequests.push(r);
    return reply.code(204).send();
  });
  app.get("/debug/event_deliveries", { config }, async (request) => {
    adminOnly(request);
    const { destination_id: destination, event_type: type } = request.query as Record<
      string,
      string | undefined
    >;
    const deliveries = app.store
      .forAccount(request.principal.accountId)
      .deliveries()
      .filter(
        (d) =>
          (destination === undefined || d.destination_id === destination) &&
          (type === undefined || d.event_type === type),
      )
      .map(({ seq: _seq, ...d }) => d);
    return { event_deliveries: deliveries };
  });
}
