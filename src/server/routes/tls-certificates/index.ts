/** TLS certificates: docs/api.md > Endpoints > TLS certificates (parsed for real). */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function tlsCertificateRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("tls_certificate"));
}
