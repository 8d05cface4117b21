/** Event subscriptions: docs/api.md > Endpoints > Event subscriptions. */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function eventSubscriptionRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("event_subscription"));
}
