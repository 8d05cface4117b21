/**
 * The go-plugin side served in-process (src/terraform/plugin-server.ts), driven as go-plugin's client
 * drives it, with node:http2 as the client: mutual TLS on the handshake's unix socket, the provider's
 * calls by the protocol's codecs, the health check, the stdio stream, and Shutdown.
 */
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import * as http2 from "node:http2";
import { connect as tlsConnect } from "node:tls";
import { expect, it } from "vitest";
import { frameMessage, MessageReader } from "../../src/terraform/grpc.js";
import { servePlugin } from "../../src/terraform/plugin-server.js";
import { codec } from "../../src/terraform/protocol.js";
import { selfSignedCertificate } from "../../src/terraform/tls.js";

/** One call: the response messages (decoded as `responseType`) and the grpc-status. */
async function call(session: http2.ClientHttp2Session, path: string, body: Uint8Array, responseType: string) {
  const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc" });
  const reader = new MessageReader();
  const messages: Record<string, unknown>[] = [];
  let status = "";
  req.on("response", (h) => {
    status = String(h["grpc-status"] ?? status);
  });
  req.on("trailers", (t) => {
    status = String(t["grpc-status"]);
  });
  req.on("data", (d: Buffer) => messages.push(...reader.push(d).map((m) => codec(responseType).decode(m))));
  req.end(frameMessage(body));
  await once(req, "close");
  return { messages, status };
}

it("serves the provider, the health check and the stdio stream over mutual TLS, until Shutdown", async () => {
  const client = selfSignedCertificate("localhost");
  const plugin = await servePlugin(
    { GetProviderSchema: () => ({ provider: { version: 7 } }) },
    { PLUGIN_CLIENT_CERT: client.certPem },
  );
  const [core, proto, net, socket, kind, cert] = plugin.handshake.split("|");
  expect([core, proto, net, kind]).toEqual(["1", "6", "unix", "grpc"]);
  const serverPem = new X509Certificate(Buffer.from(cert ?? "", "base64")).toString();
  const session = http2.connect("https://localhost", {
    createConnection: () =>
      tlsConnect({
        path: socket ?? "",
        servername: "localhost",
        ca: [serverPem],
        key: client.keyPem,
        cert: client.certPem,
        ALPNProtocols: ["h2"],
      }),
  });
  const empty = new Uint8Array(0);
  const schema = await call(
    session,
    "/tfplugin6.Provider/GetProviderSchema",
    empty,
    "tfplugin6.GetProviderSchema.Response",
  );
  expect(schema.status).toBe("0");
  expect(schema.messages[0]).toMatchObject({ provider: { version: 7 } });
  const unserved = await call(
    session,
    "/tfplugin6.Provider/ReadResource",
    empty,
    "tfplugin6.ReadResource.Response",
  );
  expect(unserved.status).toBe("12");
  const health = await call(
    session,
    "/grpc.health.v1.Health/Check",
    empty,
    "grpc.health.v1.HealthCheckResponse",
  );
  expect(health.messages).toEqual([{ status: "SERVING" }]);
  const stdio = call(session, "/plugin.GRPCStdio/StreamStdio", empty, "plugin.StdioData");
  const shutdown = await call(session, "/plugin.GRPCController/Shutdown", empty, "plugin.Empty");
  expect(shutdown.status).toBe("0");
  await plugin.stopped;
  expect((await stdio).status).toBe("0");
  expect(session.closed || session.destroyed).toBe(true);
});
