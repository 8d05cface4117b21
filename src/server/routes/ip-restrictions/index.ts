/** IP restrictions: docs/api.md > Endpoints > IP restrictions, with get, list and update as docs/design.md section 5 adds them. */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function ipRestrictionRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("ip_restriction"));
}
