/** Event destinations: docs/api.md > Endpoints > Event destinations (409 on delete while in use). */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function eventDestinationRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("event_destination"));
}
