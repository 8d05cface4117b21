/**
 * Graceful close: once `app.close()` has begun, answers to requests still in flight carry
 * `Connection: close`, so their keep-alive sockets end with the answer and the server can finish
 * closing (idle sockets are closed by Fastify at once; new requests get 503).
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

async function shutdownPlugin(app: FastifyInstance): Promise<void> {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
}

export default fp(shutdownPlugin, { name: "tgw-shutdown" });
