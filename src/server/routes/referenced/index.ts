/**
 * Referenced-only objects (docs/design.md section 5): edges and their routes, tunnels, reserved
 * domains and addresses, certificate authorities, SSH certificate authorities, IP policies, users and
 * bots, with the minimal create / get / list / delete their schemas in `schemas/referenced` declare.
 */
import type { FastifyInstance } from "fastify";
import { allKinds } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function referencedRoutes(app: FastifyInstance): Promise<void> {
  for (const kind of allKinds().values()) if (kind.referencedOnly) registerCollection(app, kind);
}
