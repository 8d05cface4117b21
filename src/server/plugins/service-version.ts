/**
 * `Service-Version: 2` on every API call (docs/api.md > Versioning): missing -> 400, any other value ->
 * 400 (docs/design.md section 5 > Version). Debug routes do not need it. A check of the one onRequest
 * hook (./request-log.ts).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { problems } from "../errors.js";

async function serviceVersionPlugin(app: FastifyInstance): Promise<void> {
  app.requestChecks.push((request) => {
    if (request.debugRoute) return;
    const raw = request.headers["service-version"];
    if (raw === "2") return;
    const value = Array.isArray(raw) ? raw.join(",") : raw;
    if (value === undefined || value.trim() === "") throw problems.missingServiceVersion();
    if (value.trim() !== "2") throw problems.unsupportedServiceVersion(value);
  });
}

export default fp(serviceVersionPlugin, { name: "tgw-service-version", dependencies: ["tgw-request-log"] });
