/** SSH credentials: docs/api.md > Endpoints > SSH credentials. */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function sshCredentialRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("ssh_credential"));
}
