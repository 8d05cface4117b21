/**
 * The nine traffic modules (docs/api.md > Module operations): SAML, OIDC, user agent filter, response
 * headers and compression on HTTPS edge routes; mutual TLS on HTTPS and TLS edges; backend on TLS and
 * TCP edges. One generic builder; their special rules are hooks (../../resources/kinds).
 */
import type { FastifyInstance } from "fastify";
import { moduleKinds } from "../../../model/index.js";
import { registerModule } from "../module.js";

export default async function moduleRoutes(app: FastifyInstance): Promise<void> {
  for (const kind of moduleKinds()) registerModule(app, kind);
}
