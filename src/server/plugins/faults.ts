/**
 * Fault injection (`--faults`, docs/design.md section 5) for reliability tests. A share of requests is
 * answered 500, 503 or 429 (with `Retry-After`), or dropped (the socket is destroyed without an
 * answer). The decision is taken when the request arrives, BEFORE authentication and before anything
 * is processed: an injected 429, 500 or 503 changed nothing, and neither did a drop. Clients rely on
 * a 429 meaning "not processed". The one exception is `lost`: the request is processed as usual and
 * its answer is never sent (the socket is destroyed when the answer would be written), the failure
 * that leaves a created object its client never heard of. Debug routes are never subject to faults.
 * With a seed the sequence of faults is reproducible.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { errorBody, problems } from "../errors.js";
import type { FaultConfig } from "../options.js";

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Options of this plugin (registered by ../app.ts). */
export interface FaultsPluginOptions {
  faults?: FaultConfig | undefined;
}

async function faultsPlugin(app: FastifyInstance, opts: FaultsPluginOptions): Promise<void> {
  const config = opts.faults;
  if (config === undefined || config.rules.length === 0) return;
  const random = seeded(config.seed ?? Date.now());
  // Requests to process whose answer is then lost: marked here, cut off in the send step.
  const lost = new WeakSet<object>();
  app.sendSteps.push((request) => {
    if (lost.has(request)) request.raw.socket.destroy();
  });
  app.requestChecks.push((request, reply) => {
    if (request.debugRoute) return;
    const draw = random();
    let acc = 0;
    const rule = config.rules.find((r) => {
      acc += r.probability;
      return draw < acc;
    });
    if (rule === undefined) return;
    if (rule.outcome === "lost") {
      lost.add(request);
      return;
    }
    if (rule.outcome === "drop") {
      reply.hijack();
      request.raw.socket.destroy();
      return true;
    }
    const problem =
      rule.outcome === 429
        ? problems.injectedRateLimit(config.retryAfterSeconds)
        : rule.outcome === 503
          ? problems.injectedUnavailable()
          : problems.injectedInternal();
    reply.code(problem.statusCode).headers(problem.headers).send(errorBody(problem, request.id));
    return true;
  });
}

export default fp(faultsPlugin, { name: "tgw-faults", dependencies: ["tgw-request-log"] });
