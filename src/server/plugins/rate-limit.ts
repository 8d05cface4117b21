/**
 * Rate limit per API key (`--rate-limit N/WINDOW`, off by default; docs/design.md section 5): at most N
 * requests of one key in any sliding window. Over it: 429 with `Retry-After` (whole seconds until a
 * slot frees), checked before the body is read, so a 429 was not processed. Debug routes are exempt.
 *
 * Kept instead of `@fastify/rate-limit`, whose window is fixed (a counter reset every window): a client
 * could then send 2N requests across a window boundary, which the production limit this reproduces
 * does not allow, and the client-side limiter of src/client is tested against this exact rule.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { problems } from "../errors.js";
import type { RateLimitConfig } from "../options.js";

/** Options of this plugin (registered by ../app.ts). */
export interface RateLimitPluginOptions {
  rateLimit?: RateLimitConfig | undefined;
}

async function rateLimitPlugin(app: FastifyInstance, opts: RateLimitPluginOptions): Promise<void> {
  const config = opts.rateLimit;
  if (config === undefined) return;
  // Start times of the accepted requests of each key within the window, oldest first.
  const windows = new Map<string, number[]>();
  app.requestChecks.push((request) => {
    if (request.debugRoute) return;
    const now = Date.now();
    const key = request.principal.keyId;
    const starts = (windows.get(key) ?? []).filter((t) => t > now - config.windowMs);
    windows.set(key, starts);
    if (starts.length >= config.limit) {
      const freeAt = (starts[0] ?? now) + config.windowMs;
      throw problems.rateLimited(config.text, Math.max(1, Math.ceil((freeAt - now) / 1000)));
    }
    starts.push(now);
  });
}

export default fp(rateLimitPlugin, { name: "tgw-rate-limit", dependencies: ["tgw-auth"] });
