/**
 * HTTP helpers shared by the route builders: the request context, page parameters, responses that
 * are checked against `$defs.response` when the app runs with `checkResponses` (tests), and the 405
 * answers for methods a path does not have.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import type { KindDescriptor } from "../../model/index.js";
import { loadAccount } from "../account.js";
import { problems } from "../errors.js";
import type { RequestContext } from "../resources/context.js";
import { responseBytes, responseJson } from "../resources/render.js";

/** The context of one API request. */
export function contextOf(request: FastifyRequest): RequestContext {
  const app = request.server;
  const { accountId, ownerId } = request.principal;
  const store = app.store.forAccount(accountId, ownerId);
  return {
    store,
    principal: request.principal,
    account: loadAccount(store),
    baseUrl: app.publicUrl.base,
    emitEvents: true,
  };
}

/** A template path (`/edges/https/{edge_id}/routes`) in Fastify's form (`/edges/https/:edge_id/routes`). */
export function fastifyPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ":$1");
}

/** The request path without its query string. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0] ?? "";
}

/** Page parameters of a list (docs/design.md section 5 > Pagination). */
export interface PageQuery {
  limit: number;
  beforeId?: string;
}

/**
 * Reads `limit` (an integer 1..100, default 100) and `before_id`.
 * @throws ApiProblem 400 naming the parameter and its limits
 */
export function pageQuery(request: FastifyRequest): PageQuery {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const rawLimit = query.limit;
  let limit = 100;
  if (rawLimit !== undefined) {
    if (
      typeof rawLimit !== "string" ||
      !/^\d+$/.test(rawLimit) ||
      Number(rawLimit) < 1 ||
      Number(rawLimit) > 100
    ) {
      throw problems.invalidQuery(`limit must be an integer from 1 to 100 (got ${JSON.stringify(rawLimit)})`);
    }
    limit = Number(rawLimit);
  }
  const beforeId = query.before_id;
  if (beforeId !== undefined && (typeof beforeId !== "string" || beforeId === "")) {
    throw problems.invalidQuery(`before_id must be one id (got ${JSON.stringify(beforeId)})`);
  }
  return { limit, ...(beforeId === undefined ? {} : { beforeId }) };
}

/** The list envelope: items under the kind's key, the list's `uri`, and `next_page_uri` or null. */
export function listEnvelope(
  request: FastifyRequest,
  listKey: string,
  items: unknown[],
  limit: number,
  nextBeforeId: string | undefined,
): Record<string, unknown> {
  const uri = `${request.server.publicUrl.base}${pathOf(request)}`;
  const next =
    nextBeforeId === undefined ? null : `${uri}?before_id=${encodeURIComponent(nextBeforeId)}&limit=${limit}`;
  return { [listKey]: items, uri, next_page_uri: next };
}

/**
 * Sends a resource (or list of resources under `listKey`) as JSON, first checking each against the
 * kind's `$defs.response` when the app has `checkResponses` on: a mismatch is a server bug (500).
 * The body is `JSON.stringify(body)`; a list's is sent as one Buffer joined from its items' bytes,
 * made once for cached objects (../resources/render.ts > responseJson, responseBytes).
 */
export function sendChecked(
  reply: FastifyReply,
  kind: KindDescriptor,
  status: number,
  body: Record<string, unknown>,
  listKey?: string,
): FastifyReply {
  const app = reply.server;
  if (app.checkResponses) {
    const items = listKey === undefined ? [body] : (body[listKey] as unknown[]);
    for (const item of items) {
      const errors = app.validators.responseErrors(kind, item);
      if (errors)
        throw new Error(`response of ${kind.kind} does not match $defs.response: ${errors.join("; ")}`);
    }
  }
  // One object as text (Node writes a short string with the headers at once), a list as bytes.
  const payload = listKey === undefined ? responseJson(body) : envelopeBytes(body, listKey);
  return reply.code(status).type("application/json; charset=utf-8").send(payload);
}

const COMMA = Buffer.from(",");

/** A page sent: its items (frozen responses of cached objects) and its bytes. */
interface SentPage {
  items: readonly unknown[];
  bytes: Buffer;
}

/** Most pages kept by `sentPages`; past it the map starts again from empty. */
const MAX_SENT_PAGES = 256;

/**
 * The last page sent of each list, by the rest of its envelope (`uri`, `next_page_uri`...): a page
 * whose items are the very same frozen responses (../resources/render.ts: one per cached object,
 * never changed, replaced when the object changes) has the same bytes, so a list read again is not
 * joined again. Identity, not equality, is what is compared: 100 pointers. Kept (issue 28 §2):
 * without it a list of 100 answers at 0.37-0.45x of bare Fastify against 0.43-0.50x (bench/README.md).
 */
const sentPages = new Map<string, SentPage>();

/**
 * The UTF-8 of `JSON.stringify(envelope)`, joined from each item's bytes (responseBytes) and the
 * envelope's other members: one copy of the page, no text of it; or the bytes of the same page sent
 * before (`sentPages`).
 */
function envelopeBytes(envelope: Record<string, unknown>, listKey: string): Buffer {
  const items = envelope[listKey] as Record<string, unknown>[];
  // The envelope without its items, with a hole where they go.
  let text = "{";
  let first = true;
  for (const [key, value] of Object.entries(envelope)) {
    if (value === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${key === listKey ? "\0" : JSON.stringify(value)}`;
    first = false;
  }
  text += "}";
  const sent = sentPages.get(text);
  if (sent !== undefined && sameItems(sent.items, items)) return sent.bytes;
  const hole = text.indexOf("\0");
  const parts: Buffer[] = [Buffer.from(`${text.slice(0, hole)}[`)];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(responseBytes(items[i] as Record<string, unknown>));
  }
  parts.push(Buffer.from(`]${text.slice(hole + 1)}`));
  const bytes = Buffer.concat(parts);
  // Only pages of frozen responses are kept: another response object may have other content.
  if (items.every((item) => Object.isFrozen(item))) {
    if (sentPages.size >= MAX_SENT_PAGES) sentPages.clear();
    sentPages.set(text, { items: items.slice(), bytes });
  }
  return bytes;
}

/** Whether two lists hold the same objects (identity) in the same order. */
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const METHODS: HTTPMethods[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Answers 405 (with `Allow`) for the methods of `url` other than `allowed`. */
export function allowOnly(app: FastifyInstance, url: string, allowed: HTTPMethods[]): void {
  const others = METHODS.filter((m) => !allowed.includes(m));
  if (others.length === 0 || allowed.length === 0) return;
  app.route({
    method: others,
    url,
    handler: async (request) => {
      throw problems.methodNotAllowed(request.method, pathOf(request), allowed);
    },
  });
}
