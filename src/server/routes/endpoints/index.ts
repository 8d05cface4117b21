/**
 * Endpoints (docs/api.md > Endpoints (read-only)): list and get of the endpoints derived from the tunnels
 * and edges that exist (../../resources/endpoints.ts), paginated like every list.
 */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { problems } from "../../errors.js";
import { deriveEndpoints } from "../../resources/endpoints.js";
import { allowOnly, contextOf, listEnvelope, pageQuery, sendChecked } from "../context.js";

export default async function endpointRoutes(app: FastifyInstance): Promise<void> {
  const kind = getKind("endpoint");
  app.get(kind.path, async (request, reply) => {
    const { limit, beforeId } = pageQuery(request);
    const all = deriveEndpoints(contextOf(request));
    let start = 0;
    if (beforeId !== undefined) {
      start = all.findIndex((e) => e.id === beforeId) + 1;
      if (start === 0)
        throw problems.invalidQuery(`before_id: ${beforeId} is not the id of an item of this list`);
    }
    const items = all.slice(start, start + limit);
    const next = start + limit < all.length ? items[items.length - 1]?.id : undefined;
    return sendChecked(reply, kind, 200, listEnvelope(request, "endpoints", items, limit, next), "endpoints");
  });
  app.get(`${kind.path}/:id`, async (request, reply) => {
    const { id } = request.params as { id: string };
    const found = deriveEndpoints(contextOf(request)).find((e) => e.id === id);
    if (found === undefined) throw problems.notFound("endpoint", id);
    return sendChecked(reply, kind, 200, found);
  });
  allowOnly(app, kind.path, ["GET"]);
  allowOnly(app, `${kind.path}/:id`, ["GET"]);
}
