/**
 * The generic route builder of a traffic module (docs/api.md > Module operations), from its descriptor:
 * PUT replaces the module (200 with it), GET reads it (200; 404 when never set), DELETE removes it
 * (204). The edge (and route) of the path must exist (404).
 */
import type { FastifyInstance } from "fastify";
import type { KindDescriptor } from "../../model/index.js";
import { requestSchema } from "../plugins/validation.js";
import type { Body } from "../resources/hooks.js";
import {
  deleteModule,
  findModuleParent,
  getModule,
  type ModuleParams,
  putModule,
} from "../resources/modules.js";
import { allowOnly, contextOf, fastifyPath, pathOf, sendChecked } from "./context.js";

/** Registers PUT, GET and DELETE of a module kind (and 405 for the other methods). */
export function registerModule(app: FastifyInstance, kind: KindDescriptor): void {
  const url = fastifyPath(kind.path);
  app.put(url, { schema: { body: requestSchema(kind, "put") } }, async (request, reply) => {
    const ctx = contextOf(request);
    const parent = findModuleParent(kind, request.params as ModuleParams, ctx);
    return sendChecked(reply, kind, 200, await putModule(kind, parent, request.body as Body, ctx));
  });
  app.get(url, async (request, reply) => {
    const ctx = contextOf(request);
    const parent = findModuleParent(kind, request.params as ModuleParams, ctx);
    return sendChecked(reply, kind, 200, getModule(kind, parent, ctx, pathOf(request)));
  });
  app.delete(url, async (request, reply) => {
    const ctx = contextOf(request);
    deleteModule(kind, findModuleParent(kind, request.params as ModuleParams, ctx), ctx, pathOf(request));
    return reply.code(204).send();
  });
  allowOnly(app, url, ["PUT", "GET", "DELETE"]);
}
