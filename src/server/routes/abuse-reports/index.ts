/** Abuse reports: docs/api.md > Endpoints > Abuse reports (create and get; accounts with the flag only). */
import type { FastifyInstance } from "fastify";
import { getKind } from "../../../model/index.js";
import { registerCollection } from "../collection.js";

export default async function abuseReportRoutes(app: FastifyInstance): Promise<void> {
  registerCollection(app, getKind("abuse_report"));
}
