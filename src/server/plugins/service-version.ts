/**
 * `Service-Version: 2` on every API call (docs/api.md > Versioning): missing -> 400, any other value ->
 * 400 (docs/design.md section 5 > Version). Debug routes do not need it.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { problems } from "../errors.js";

async function serviceVersionPlugin(app: FastifyInstance): Promise<void> {
  app.addHook("onRequest", (request, _reply, done) => {
    if (request.debugRoute) return done();
    const raw = request.headers["service-version"];
    if (raw === "2") return done();
    const value = Array.isArray(raw) ? raw.join(",") : raw;
    if (value === undefined || value.trim() === "") return done(problems.missingServiceVersion());
    if (value.trim() !== "2") return done(problems.unsupportedServiceVersion(value));
    done();
  });
}

export default fp(serviceVersionPlugin, { name: "tgw-service-version", dependencies: ["tgw-request-log"] });
