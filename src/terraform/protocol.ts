/**
 * Loads the protocol definitions of ./protocol/*.proto (our own text of Terraform's plugin protocol 6
 * and go-plugin's services). Messages are plain objects: enums as names, 64-bit integers as numbers,
 * bytes as Buffers, unset fields with their defaults.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type * as grpc from "@grpc/grpc-js";
import { loadPackageDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

/** The folder of the .proto files, from src/terraform or from dist/terraform (which has no copy). */
function protocolDir(): string {
  const here = fileURLToPath(new URL("./protocol/", import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL("../../src/terraform/protocol/", import.meta.url));
}

interface Services {
  tfplugin6: { Provider: grpc.ServiceClientConstructor };
  plugin: { GRPCController: grpc.ServiceClientConstructor; GRPCStdio: grpc.ServiceClientConstructor };
  health: { Health: grpc.ServiceClientConstructor };
}

let loaded: Services | undefined;

/** The service definitions (loaded once). */
export function loadProto(): Services {
  if (loaded) return loaded;
  const dir = protocolDir();
  const options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
  const def = loadSync(["provider.proto", "go-plugin.proto", "health.proto"], {
    ...options,
    includeDirs: [dir],
  });
  const pkg = loadPackageDefinition(def) as unknown as {
    tfplugin6: Services["tfplugin6"];
    plugin: Services["plugin"];
    grpc: { health: { v1: Services["health"] } };
  };
  loaded = { tfplugin6: pkg.tfplugin6, plugin: pkg.plugin, health: pkg.grpc.health.v1 };
  return loaded;
}
