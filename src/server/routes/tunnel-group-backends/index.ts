/** Tunnel group backends: docs/api.md > Endpoints > Tunnel group backends. */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function tunnelGroupBackendRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("tunnel_group_backend"));
}
