/**
 * Request bodies are JSON only (docs/api.md > Conventions), in UTF-8 (RFC 8259 section 8.1):
 * - any other Content-Type on a call with a body, or a `charset` other than UTF-8, is a 415;
 * - bytes that are not valid UTF-8 are a 400 (never silently replaced by U+FFFD);
 * - JSON nested deeper than MAX_JSON_DEPTH arrays and objects is a 400, found by a scan before the
 *   parse, so no later step (validation, error messages) can recurse without bound;
 * - invalid JSON is a 400 with the parser's reason; a body over the limit is a 413 (see
 *   ./error-handler.ts).
 * An empty body counts as no body, whatever its Content-Type (some clients send
 * `Content-Type: application/json` on a DELETE): the validators treat a missing body as `{}`.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { problems } from "../errors.js";

/** Deepest nesting of arrays and objects accepted in a body (the API's own shapes need fewer than 10). */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The `charset` parameter of a Content-Type, lower-cased, or undefined. */
function charsetOf(contentType: string): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  return m?.[1]?.toLowerCase();
}

/** How deep arrays and objects nest in a JSON text (strings skipped); stops counting past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

async function jsonBodyPlugin(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const contentType = request.headers["content-type"] ?? "";
    const charset = charsetOf(contentType);
    if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
      return done(problems.unsupportedMediaType(contentType), undefined);
    }
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(problems.invalidJson("it is not valid UTF-8"), undefined);
    }
    if (text.trim() === "") return done(null, undefined);
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      return done(
        problems.invalidJson(`arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(problems.invalidJson((err as Error).message), undefined);
    }
  });
}

export default fp(jsonBodyPlugin, { name: "tgw-json-body" });
