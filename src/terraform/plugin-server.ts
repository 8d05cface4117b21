/**
 * The go-plugin side of a Terraform provider: how Terraform starts, trusts and stops the process.
 *
 * - Terraform runs the executable with `TF_PLUGIN_MAGIC_COOKIE` set to its fixed cookie; anything else
 *   means a person ran it by hand, which gets an explanation and exit code 1.
 * - Mutual TLS: Terraform passes its client certificate (PEM) in `PLUGIN_CLIENT_CERT`; the plugin makes
 *   a self-signed certificate for the name `localhost`, trusts only the client's certificate, and
 *   prints its own certificate (DER, base64 without padding) in the handshake line.
 * - The handshake line on stdout: `1|6|unix|<socket path>|grpc|<certificate>` (core protocol 1,
 *   plugin protocol 6, a unix socket in a private temporary directory).
 * - Besides the provider service, the plugin serves the controller (`Shutdown` ends the process), the
 *   stdio stream (nothing is forwarded: logs go to stderr, which Terraform shows at TF_LOG=debug) and
 *   the gRPC health check.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadProto } from "./protocol.js";
import { selfSignedCertificate } from "./tls.js";

/** Terraform's handshake cookie (go-plugin `MagicCookieKey` / `MagicCookieValue`). */
export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/** The calls of the tfplugin6 Provider service this provider serves (others answer UNIMPLEMENTED). */
export const PROVIDER_RPCS = [
  "GetProviderSchema",
  "ValidateProviderConfig",
  "ValidateResourceConfig",
  "ValidateDataResourceConfig",
  "UpgradeResourceState",
  "ConfigureProvider",
  "ReadResource",
  "PlanResourceChange",
  "ApplyResourceChange",
  "ImportResourceState",
  "ReadDataSource",
  "StopProvider",
] as const;

/** One of `PROVIDER_RPCS`. */
export type ProviderRpc = (typeof PROVIDER_RPCS)[number];

/** The handlers of the tfplugin6 Provider service, by method name. */
export type ProviderHandlers = grpc.UntypedServiceImplementation;

/** A running plugin server. */
export interface PluginServer {
  /** The handshake line printed on stdout (without the newline). */
  handshake: string;
  /** Resolves when Terraform asked to shut down (or `stop` was called). */
  stopped: Promise<void>;
  /** Stops serving; `force`: cancels calls in flight instead of waiting for them. */
  stop(force?: boolean): Promise<void>;
}

/**
 * Serves `handlers` as a protocol-6 plugin on a fresh unix socket.
 * @param env the environment (default `process.env`): `PLUGIN_CLIENT_CERT` turns on mutual TLS.
 * @throws Error when the socket cannot be bound.
 */
export async function servePlugin(
  handlers: ProviderHandlers,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PluginServer> {
  const proto = loadProto();
  const server = new grpc.Server();
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const dir = mkdtempSync(join(env.PLUGIN_UNIX_SOCKET_DIR || tmpdir(), "tgw-plugin-"));
  const socket = join(dir, "plugin.sock");
  const stop = async (force = false) => {
    if (force) server.forceShutdown();
    else await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
    resolveStopped();
  };

  server.addService(proto.tfplugin6.Provider.service, handlers);
  server.addService(proto.plugin.GRPCController.service, {
    Shutdown: (_call: unknown, callback: grpc.sendUnaryData<object>) => {
      callback(null, {});
      setImmediate(() => void stop());
    },
  });
  server.addService(proto.plugin.GRPCStdio.service, {
    // Nothing is forwarded; the stream stays open until Terraform closes it.
    StreamStdio: (call: grpc.ServerWritableStream<object, object>) => {
      call.on("cancelled", () => call.end());
    },
  });
  server.addService(proto.health.Health.service, {
    Check: (_call: unknown, callback: grpc.sendUnaryData<object>) => callback(null, { status: "SERVING" }),
  });

  let credentials = grpc.ServerCredentials.createInsecure();
  let cert = "";
  const clientCert = env.PLUGIN_CLIENT_CERT;
  if (clientCert) {
    const own = await selfSignedCertificate("localhost");
    credentials = grpc.ServerCredentials.createSsl(
      Buffer.from(clientCert),
      [{ private_key: Buffer.from(own.keyPem), cert_chain: Buffer.from(own.certPem) }],
      true,
    );
    cert = own.der.toString("base64").replace(/=+$/, "");
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, credentials, (err) => (err ? reject(err) : resolve())),
  );
  return { handshake: `1|6|unix|${socket}|grpc|${cert}`, stopped, stop };
}
