/**
 * Every error answer has the body of docs/design.md section 5 (see ../errors.ts). ApiProblems are
 * answered as they are; Fastify's own errors (content type, body size, JSON) are mapped to the
 * catalogue; anything else is a bug: 500, logged with its stack, never shown to the client.
 * Unknown paths answer 404 the same way.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiProblem, errorBody, problems } from "../errors.js";

function toProblem(err: FastifyError, request: FastifyRequest, bodyLimit: number): ApiProblem {
  if (err instanceof ApiProblem) return err;
  switch (err.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return problems.unsupportedMediaType(request.headers["content-type"] ?? "");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return problems.bodyTooLarge(bodyLimit);
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return problems.invalidJson(err.message);
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiProblem(problems.badRequest.code, status, err.message);
  return problems.internal();
}

async function errorHandlerPlugin(app: FastifyInstance): Promise<void> {
  const bodyLimit = app.initialConfig.bodyLimit ?? 1_048_576;
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const problem = toProblem(err, request, bodyLimit);
    if (problem.code === problems.internal.code) request.log.error({ err }, "internal error");
    reply.code(problem.statusCode).headers(problem.headers).send(errorBody(problem, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const problem = problems.routeNotFound(request.method, request.url.split("?")[0] ?? "");
    reply.code(404).send(errorBody(problem, request.id));
  });
}

export default fp(errorHandlerPlugin, { name: "tgw-error-handler" });
