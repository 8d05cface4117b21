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
  // Callback style: an async hook costs a promise and a microtask turn on every answer.
  app.addHook("onSend", (_request, reply, _payload, done) => {
    if (closing) reply.header("connection", "close");
    done();
  });
}

export default fp(shutdownPlugin, { name: "tgw-shutdown" });
