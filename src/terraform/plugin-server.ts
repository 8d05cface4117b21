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
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grpcServer, type Method } from "./grpc.js";
import { type ProtocolMethod, type ProtocolService, protocolMethods } from "./protocol.js";
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

/**
 * A unary handler: the request as a plain object (./protocol.ts: field names as in the .proto files,
 * enums by name) to the response. A throw answers the call with a gRPC error (./grpc.ts): the
 * provider's own handlers answer with diagnostics instead.
 */
export type ProviderHandler = (request: Record<string, unknown>) => Promise<object> | object;

/** The handlers of the tfplugin6 Provider service, by method name; a method without one is UNIMPLEMENTED. */
export type ProviderHandlers = Partial<Record<string, ProviderHandler>>;

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
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const dir = mkdtempSync(join(env.PLUGIN_UNIX_SOCKET_DIR || tmpdir(), "tgw-plugin-"));
  const socket = join(dir, "plugin.sock");
  const stop = async (force = false) => {
    await server.close(force);
    rmSync(dir, { recursive: true, force: true });
    resolveStopped();
  };
  const methods = new Map<string, Method>();
  const serve = (service: ProtocolService, byName: ProviderHandlers) => {
    for (const m of protocolMethods(service)) {
      const handler = byName[m.name];
      if (handler && !m.responseStream) methods.set(m.path, unary(m, handler));
    }
  };
  serve("tfplugin6.Provider", handlers);
  serve("plugin.GRPCController", {
    Shutdown: () => {
      setImmediate(() => void stop());
      return {};
    },
  });
  serve("grpc.health.v1.Health", { Check: () => ({ status: "SERVING" }) });
  const [stdio] = protocolMethods("plugin.GRPCStdio");
  if (stdio)
    methods.set(stdio.path, {
      kind: "server-stream",
      decode: (bytes) => stdio.request.decode(bytes),
      encode: (message) => stdio.response.encode(message as object),
      // Nothing is forwarded; the stream stays open until Terraform closes it or the server stops.
      handle: async (_request, call) => {
        await once(call.signal, "abort");
      },
    });

  let cert = "";
  let tls: { keyPem: string; certPem: string; clientCaPem: string } | undefined;
  const clientCert = env.PLUGIN_CLIENT_CERT;
  if (clientCert) {
    const own = selfSignedCertificate("localhost");
    tls = { keyPem: own.keyPem, certPem: own.certPem, clientCaPem: clientCert };
    cert = own.der.toString("base64").replace(/=+$/, "");
  }
  const server = grpcServer(methods, tls ? { tls } : {});
  await server.listen(socket);
  return { handshake: `1|6|unix|${socket}|grpc|${cert}`, stopped, stop };
}

/** A unary method of the protocol served by `handler`. */
function unary(m: ProtocolMethod, handler: ProviderHandler): Method {
  return {
    kind: "unary",
    decode: (bytes) => m.request.decode(bytes),
    encode: (message) => m.response.encode(message as object),
    handle: (request) => handler(request as Record<string, unknown>),
  };
}
