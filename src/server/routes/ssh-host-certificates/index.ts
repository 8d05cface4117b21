/** SSH host certificates: docs/api.md > Endpoints > SSH host certificates (signed for real). */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function sshHostCertificateRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("ssh_host_certificate"));
}
