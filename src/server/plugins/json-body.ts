/**
 * Request bodies are JSON only (SPEC.md > Conventions): any other Content-Type on a call with a body
 * is a 415. Invalid JSON is a 400 with the parser's reason; a body over the limit is a 413 (see
 * ./error-handler.ts). An empty body counts as no body, whatever its Content-Type (some clients send
 * `Content-Type: application/json` on a DELETE): the validators treat a missing body as `{}`.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { problems } from "../errors.js";

async function jsonBodyPlugin(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(problems.invalidJson((err as Error).message), undefined);
    }
  });
}

export default fp(jsonBodyPlugin, { name: "tgw-json-body" });
