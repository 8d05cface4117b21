/** API keys: docs/api.md > Endpoints > API keys (token in the create response only). */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("api_key"));
}
