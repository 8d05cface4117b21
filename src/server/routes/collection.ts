/**
 * The generic route builder of a collection kind (every docs/api.md resource and every referenced-only
 * object), derived from its descriptor in src/model: path, listKey, idPrefix, operations and the
 * request `$defs`. Statuses are docs/api.md's: create 201, get/update 200, delete 204, list 200 with the
 * envelope `{<listKey>, uri, next_page_uri}`. Nested collections (routes) take their parent's id from
 * the path and answer 404 when it does not exist. Behaviour special to a kind lives in its hooks
 * (../resources/kinds).
 */
import type { FastifyInstance, FastifyRequest, HTTPMethods } from "fastify";
import type { KindDescriptor } from "../../model/index.js";
import { requestSchema } from "../plugins/validation.js";
import type { Body } from "../resources/hooks.js";
import {
  createObject,
  deleteObject,
  findParent,
  getObject,
  listObjects,
  updateObject,
} from "../resources/service.js";
import { allowOnly, contextOf, fastifyPath, listEnvelope, pageQuery, sendChecked } from "./context.js";

interface Params {
  id?: string;
  edge_id?: string;
}

/** Registers the collection and item routes of `kind` (and 405s for the other methods). */
export function registerCollection(app: FastifyInstance, kind: KindDescriptor): void {
  const base = fastifyPath(kind.path);
  const item = `${base}/:id`;
  const ops = kind.operations;
  const onBase: HTTPMethods[] = [];
  const onItem: HTTPMethods[] = [];
  const parentOf = (request: FastifyRequest) =>
    findParent(kind, (request.params as Params).edge_id, contextOf(request));
  const idOf = (request: FastifyRequest) => (request.params as Params).id ?? "";

  if (ops.has("create")) {
    onBase.push("POST");
    // Not async (nor the GETs below): an async handler costs a promise and microtask turns per request.
    app.post(base, { schema: { body: requestSchema(kind, "create") } }, (request, reply) => {
      const ctx = contextOf(request);
      const parentId = findParent(kind, (request.params as Params).edge_id, ctx);
      const created = createObject(kind, request.body as Body, ctx, { parentId });
      if (created instanceof Promise) {
        return created.then(({ response }) => {
          sendChecked(reply, kind, 201, response);
        });
      }
      sendChecked(reply, kind, 201, created.response);
    });
  }
  if (ops.has("list")) {
    onBase.push("GET");
    app.get(base, (request, reply) => {
      const { limit, beforeId } = pageQuery(request);
      const page = listObjects(kind, contextOf(request), parentOf(request), limit, beforeId);
      const listKey = kind.listKey ?? "items";
      sendChecked(
        reply,
        kind,
        200,
        listEnvelope(request, listKey, page.items, limit, page.nextBeforeId),
        listKey,
      );
    });
  }
  if (ops.has("get")) {
    onItem.push("GET");
    app.get(item, (request, reply) => {
      sendChecked(reply, kind, 200, getObject(kind, idOf(request), contextOf(request), parentOf(request)));
    });
  }
  if (ops.has("update")) {
    onItem.push("PATCH");
    app.patch(item, { schema: { body: requestSchema(kind, "update") } }, async (request, reply) => {
      const ctx = contextOf(request);
      const body = updateObject(kind, idOf(request), request.body as Body, ctx, parentOf(request));
      return sendChecked(reply, kind, 200, body);
    });
  }
  if (ops.has("delete")) {
    onItem.push("DELETE");
    app.delete(item, async (request, reply) => {
      deleteObject(kind, idOf(request), contextOf(request), parentOf(request));
      return reply.code(204).send();
    });
  }
  allowOnly(app, base, onBase);
  allowOnly(app, item, onItem);
}
