/**
 * Graceful close: once `app.close()` has begun, answers to requests still in flight carry
 * `Connection: close`, so their keep-alive sockets end with the answer and the server can finish
 * closing (idle sockets are closed by Fastify at once; new requests get 503). A step of the one
 * onSend hook (./request-log.ts).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

async function shutdownPlugin(app: FastifyInstance): Promise<void> {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.sendSteps.push((_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
}

export default fp(shutdownPlugin, { name: "tgw-shutdown", dependencies: ["tgw-request-log"] });
